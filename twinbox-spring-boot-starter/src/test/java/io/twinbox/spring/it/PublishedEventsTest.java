package io.twinbox.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.test.EventMatcher;
import io.twinbox.test.TwinboxProbe;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter with {@code twinbox-test}, as an application's own Spring Boot test would use it: the
 * context's relay runs on the probe's transport (no broker), on a real PostgreSQL database, and the
 * test asserts on what the {@code @Transactional} service published through the TransactionalOutbox.
 */
@SpringBootTest(classes = {ItApplication.class, PublishedEventsTest.ProbeTransport.class}, properties = {
    "spring.autoconfigure.exclude=org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
        + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
    "twinbox.inbox.consumer=orders-probe-it", "twinbox.relay.poll-interval=50ms"})
@DirtiesContext
class PublishedEventsTest {
  private static final PostgresDatabase DB = PostgresDatabase.create();

  /** The probe on the starter's store, and its transport as the application's Transport bean: the relay's. */
  @TestConfiguration(proxyBeanMethods = false)
  static class ProbeTransport {
    @Bean
    TwinboxProbe twinboxProbe(JdbcStore store) {
      return TwinboxProbe.of(store);
    }

    @Bean
    Transport probeTransport(TwinboxProbe probe) {
      return probe.transport();
    }
  }

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    new JdbcTemplate(DB.dataSource())
        .execute("CREATE TABLE IF NOT EXISTS spring_it_order (id varchar(64) PRIMARY KEY, status varchar(32) NOT NULL)");
    registry.add("spring.datasource.url", DB::jdbcUrl);
    registry.add("spring.datasource.username", DB::user);
    registry.add("spring.datasource.password", DB::password);
  }

  @Autowired Orders orders;
  @Autowired TwinboxProbe probe;
  @Autowired TwinboxRelay relay;
  @Autowired JdbcTemplate jdbc;

  @BeforeEach
  void forgetEarlierTests() {
    probe.reset();
  }

  @Test
  void aCommittedEventIsPublishedByTheContextsRelayAndARolledBackOneNever() {
    UUID committed = orders.placeWithJdbc("probe-1", false);
    assertThatThrownBy(() -> orders.placeWithJdbc("probe-2", true)).isInstanceOf(IllegalStateException.class);

    OutboxMessage m = probe.awaitPublished(EventMatcher.type("OrderPlaced").aggregate("Order", "probe-1")
        .payloadJson("{\"orderId\":\"probe-1\"}"));
    assertThat(m.id()).isEqualTo(committed);
    assertThat(relay.relay()).as("the context's relay published it, not the probe").isNotNull();

    probe.awaitNothingPending();   // everything committed is out: "not published" now means "never will be"
    probe.assertNotPublished(EventMatcher.type("OrderPlaced").aggregate("Order", "probe-2"));
    assertThat(probe.published()).extracting(OutboxMessage::id).containsExactly(committed);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM spring_it_order WHERE id = 'probe-2'", Long.class)).isZero();
  }

  @Test
  void aMissingEventFailsTheAwaitNamingTheExpectedTypeAndAggregate() {
    orders.placeWithJdbc("probe-3", false);
    probe.awaitPublished(EventMatcher.type("OrderPlaced").aggregate("Order", "probe-3"));

    // Only the inbox handler answers OrderAcknowledged, and no inbox consumer runs here.
    assertThatThrownBy(() -> probe.awaitPublished(
        EventMatcher.type("OrderAcknowledged").aggregate("Order", "probe-3"), Duration.ofMillis(300)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected an event published: type=OrderAcknowledged, aggregate=Order/probe-3")
        .hasMessageContaining("Published (1): type=OrderPlaced, aggregate=Order/probe-3");
  }
}
