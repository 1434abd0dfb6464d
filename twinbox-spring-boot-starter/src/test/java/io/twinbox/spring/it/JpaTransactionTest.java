package io.twinbox.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.KafkaDeliveryReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * With JPA on the classpath the transaction manager is Hibernate's {@link JpaTransactionManager}:
 * events written in {@code @Transactional} methods — through JdbcTemplate and through JPA — reach
 * the real Kafka broker if and only if the method commits; and the inbox consumer's handler, using
 * JdbcTemplate and the TransactionalOutbox, applies each committed event exactly once. Meters and
 * health are live.
 */
@SpringBootTest(classes = ItApplication.class, properties = {
    "spring.application.name=orders-it", "spring.jpa.hibernate.ddl-auto=none", "twinbox.relay.poll-interval=100ms"})
@DirtiesContext
class JpaTransactionTest {
  private static final ItServers SERVERS = ItServers.create();

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    SERVERS.register(registry);
  }

  @Autowired Orders orders;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired JdbcTemplate jdbc;
  @Autowired MeterRegistry meters;
  @Autowired @Qualifier("twinboxHealthIndicator") HealthIndicator health;

  @Test
  void anEventIsPublishedIfAndOnlyIfItsTransactionCommits() {
    assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
    Set<UUID> committed = new HashSet<>();
    List<String> committedOrders = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      boolean jpa = i % 2 == 0;
      String ok = "ok-" + i;
      committed.add(jpa ? orders.placeWithJpa(ok, false) : orders.placeWithJdbc(ok, false));
      committedOrders.add(ok);
      String bad = "bad-" + i;
      assertThatThrownBy(() -> {
        if (jpa) {
          orders.placeWithJpa(bad, true);
        } else {
          orders.placeWithJdbc(bad, true);
        }
      }).isInstanceOf(IllegalStateException.class);
    }
    assertThat(orders.rolledBack()).hasSize(10);

    // Every committed OrderPlaced, and the handler's OrderAcknowledged for each, reach Kafka.
    Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
        jdbc.queryForObject("SELECT count(*) FROM spring_it_received", Long.class) >= committed.size());
    List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(SERVERS.bootstrapServers(), List.of(SERVERS.topic()),
        committed, Duration.ofSeconds(60));
    Set<UUID> published = deliveries.stream().map(Delivery::id).collect(Collectors.toSet());
    assertThat(published).containsAll(committed).doesNotContainAnyElementsOf(orders.rolledBack());
    assertThat(published).hasSize(committed.size() * 2);   // + one OrderAcknowledged per order, nothing else

    // The business rows are exactly the committed ones; the inbox applied each message once.
    assertThat(jdbc.queryForList("SELECT id FROM spring_it_order", String.class))
        .containsExactlyInAnyOrderElementsOf(committedOrders);
    assertThat(jdbc.queryForList("SELECT message_id FROM spring_it_received", UUID.class))
        .containsExactlyInAnyOrderElementsOf(committed);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM twinbox_outbox", Long.class)).isZero();

    // Boot bound the meters and the relay and inbox feed them; the health indicator is UP.
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        meters.get("twinbox.relay.publish").tag("outcome", "published").counter().count())
        .isEqualTo(committed.size() * 2.0));
    assertThat(meters.get("twinbox.inbox.messages").tag("consumer", "orders-it").tag("outcome", "processed")
        .counter().count()).isEqualTo(committed.size() * 2.0);   // OrderPlaced and OrderAcknowledged
    assertThat(meters.get("twinbox.outbox.pending").gauge()).isNotNull();
    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
  }
}
