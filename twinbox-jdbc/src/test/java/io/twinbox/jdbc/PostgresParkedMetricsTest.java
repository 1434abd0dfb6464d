package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.InboxMessage;
import io.twinbox.ParkedFilter;
import io.twinbox.TwinboxAdmin;
import io.twinbox.micrometer.ParkedMetrics;
import io.twinbox.micrometer.TwinboxMetricNames;
import io.twinbox.spi.StoreRules;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The parked gauges per consumer, read from a real database and checked against what it holds. */
class PostgresParkedMetricsTest {
  static JdbcFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = JdbcFixture.postgres();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  private static void park(String consumer, String id) throws Exception {
    InboxMessage m = new InboxMessage(id, "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null);
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      fixture.inboxStore().park(c, consumer, m, StoreRules.payloadHash(m), "boom", 1);
      c.commit();
    }
  }

  @Test
  void theGaugesCountOpenParkedMessagesPerConsumerWithTheOldestAge() throws Exception {
    TwinboxAdmin admin = TwinboxAdmin.of(fixture.jdbcStore());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new ParkedMetrics(admin, List.of("payments", "shipping"), Duration.ZERO).bindTo(registry);
    park("payments", "m1");
    park("payments", "m2");
    park("payments", "m3");
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("UPDATE twinbox_inbox_parked SET parked_at = parked_at - interval '20 minutes' WHERE message_id = 'm1'");
    }
    admin.replayParked(admin.parked(ParkedFilter.open()).get(1).id(), "alice");  // REPLAYING still counts
    admin.discardParked(admin.parked(ParkedFilter.open()).get(2).id(), "alice"); // DISCARDED does not

    assertThat(gauge(registry, "payments")).isEqualTo(2.0);
    assertThat(gauge(registry, "shipping")).isZero();
    double age = registry.get(TwinboxMetricNames.INBOX_PARKED_OLDEST_AGE).tag("consumer", "payments").timeGauge()
        .value(TimeUnit.SECONDS);
    assertThat(age).isBetween(20 * 60.0, 25 * 60.0);
    assertThat(registry.get(TwinboxMetricNames.INBOX_PARKED_OLDEST_AGE).tag("consumer", "shipping").timeGauge()
        .value(TimeUnit.SECONDS)).isZero();

    admin.discardParked(ParkedFilter.open().consumer("payments"), "alice");
    assertThat(gauge(registry, "payments")).isZero();
  }

  private static double gauge(SimpleMeterRegistry registry, String consumer) {
    return registry.get(TwinboxMetricNames.INBOX_PARKED).tag("consumer", consumer).gauge().value();
  }
}
