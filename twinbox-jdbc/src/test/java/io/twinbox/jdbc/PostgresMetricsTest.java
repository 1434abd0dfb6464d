package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.micrometer.OutboxMetrics;
import io.twinbox.micrometer.RelayMetrics;
import io.twinbox.micrometer.TwinboxMetricNames;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every meter read from a real relay run and checked against the database. */
class PostgresMetricsTest {
  static JdbcFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = JdbcFixture.postgres();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @BeforeEach
  void clean() throws Exception {
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox; DELETE FROM twinbox_aggregate");
    }
  }

  static long db(String sql) throws Exception {
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void metersMatchTheDatabase() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 200; i++) {
        outbox.write(c, OutboxEvent.builder(i == 0 ? "Poison" : "OrderCreated", 1)
            .aggregate("Order", i < 3 ? "held" : "o-" + i).payload("{}").build());
      }
      c.commit();
    }
    MeterRegistry registry = new SimpleMeterRegistry();
    RelayMetrics relayMetrics = new RelayMetrics("orders");
    relayMetrics.bindTo(registry);
    OutboxMetrics.of(fixture.jdbcStore()).bindTo(new SimpleMeterRegistry()); // binds twice without trouble
    new OutboxMetrics(fixture.jdbcStore(), Duration.ZERO).bindTo(registry);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.type().equals("Poison"), PublishOutcome.retry("broker says no"));
    try (Relay relay = Relay.builder(fixture.store(), t).listener(relayMetrics).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(10), Duration.ofMillis(20)).build())
        .build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> db("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1
          && t.acked().size() == 197);
      assertThat(registry.get(TwinboxMetricNames.RELAY_PARTITIONS).gauge().value()).isEqualTo(64);
    }
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH).tag("outcome", "published").counter().count())
        .isEqualTo(197).isEqualTo(t.acked().size());
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH).tag("outcome", "retry").counter().count()).isEqualTo(2);
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH).tag("outcome", "dead").counter().count())
        .isEqualTo(db("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'")).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH_LATENCY).timer().count()).isEqualTo(197);
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH_LATENCY).timer().max(TimeUnit.MILLISECONDS)).isPositive();

    assertThat(registry.get(TwinboxMetricNames.OUTBOX_PENDING).gauge().value())
        .isEqualTo(db("SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'")).isEqualTo(2);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_FAILED).gauge().value()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_HELD_AGGREGATES).gauge().value()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_RETRYING).gauge().value()).isZero();
    long ageMs = db("SELECT (extract(epoch FROM clock_timestamp() - min(created_at)) * 1000)::bigint"
        + " FROM twinbox_outbox WHERE status = 'PENDING'");
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_OLDEST_AGE).timeGauge().value(TimeUnit.MILLISECONDS))
        .isBetween(ageMs - 2_000.0, ageMs + 2_000.0);
    assertThat(registry.get(TwinboxMetricNames.RELAY_UNOWNED_PARTITIONS).gauge().value())
        .as("the relay released its leases on close").isEqualTo(64);
  }

  /** Issue 22: an undecodable row is a FAILED row for the meters too, and has its own counter. */
  @Test
  void anUndecodableRowCountsAsDeadAndAsUndecodable() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 10; i++) {
        outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", "u-" + i).payload("{}").build());
      }
      c.commit();
    }
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("UPDATE twinbox_outbox SET headers = '[]' WHERE aggregate_id = 'u-4'"); // as rows before V4 may be
    }
    MeterRegistry registry = new SimpleMeterRegistry();
    RelayMetrics relayMetrics = new RelayMetrics("orders");
    relayMetrics.bindTo(registry);
    new OutboxMetrics(fixture.jdbcStore(), Duration.ZERO).bindTo(registry);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay relay = Relay.builder(fixture.store(), t).listener(relayMetrics).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50)).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          db("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1 && t.acked().size() == 9);
      assertThat(relay.stats().dead()).isEqualTo(1);
    }
    assertThat(registry.get(TwinboxMetricNames.RELAY_UNDECODABLE).counter().count()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH).tag("outcome", "dead").counter().count()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.RELAY_PUBLISH).tag("outcome", "published").counter().count())
        .isEqualTo(9);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_FAILED).gauge().value()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_HELD_AGGREGATES).gauge().value()).isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.OUTBOX_PENDING).gauge().value()).isZero();
  }
}
