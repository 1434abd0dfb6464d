package io.twinbox.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.KafkaDeliveryReader;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Without JPA the transaction manager is Spring's JDBC one: events written with JdbcTemplate in
 * {@code @Transactional} methods reach the real Kafka broker if and only if the method commits.
 */
@SpringBootTest(classes = ItApplication.class, properties = {
    "spring.autoconfigure.exclude=org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
        + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
    "twinbox.kafka.consumer.enabled=false", "twinbox.inbox.consumer=orders-it", "twinbox.relay.poll-interval=100ms"})
@DirtiesContext
class JdbcTransactionTest {
  private static final ItServers SERVERS = ItServers.create();

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    SERVERS.register(registry);
  }

  @Autowired Orders orders;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired JdbcTemplate jdbc;

  @Test
  void anEventIsPublishedIfAndOnlyIfItsTransactionCommits() {
    assertThat(transactionManager).isInstanceOf(JdbcTransactionManager.class);
    Set<UUID> committed = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      committed.add(orders.placeWithJdbc("ok-" + i, false));
      String bad = "bad-" + i;
      assertThatThrownBy(() -> orders.placeWithJdbc(bad, true)).isInstanceOf(IllegalStateException.class);
    }
    List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(SERVERS.bootstrapServers(), List.of(SERVERS.topic()),
        committed, Duration.ofSeconds(60));
    Set<UUID> published = deliveries.stream().map(Delivery::id).collect(Collectors.toSet());
    assertThat(published).isEqualTo(committed);
    assertThat(published).doesNotContainAnyElementsOf(orders.rolledBack());
    assertThat(orders.rolledBack()).hasSize(10);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM spring_it_order WHERE id LIKE 'bad-%'", Long.class)).isZero();
  }
}
