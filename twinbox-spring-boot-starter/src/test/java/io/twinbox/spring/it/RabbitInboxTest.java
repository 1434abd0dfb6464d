package io.twinbox.spring.it;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.spring.rabbitmq.TwinboxRabbitInboxConsumer;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The starter end to end on real RabbitMQ (127.0.0.1:5672, guest/guest) and PostgreSQL: events
 * written in {@code @Transactional} methods are published by the relay bean to a fresh exchange
 * and consumed from its queue by the starter's inbox listener, whose handler writes one effect row
 * with JdbcTemplate. Committed events are applied exactly once, rolled-back ones never; an event
 * published a second time is skipped by the inbox (RabbitMQ itself does not deduplicate).
 */
class RabbitInboxTest {
  private static EffectDatabase db;
  private static RabbitItQueue rabbit;

  @BeforeAll
  static void servers() throws Exception {
    rabbit = RabbitItQueue.declare("spring-it");
    db = EffectDatabase.create();
  }

  @AfterAll
  static void cleanUp() throws Exception {
    if (rabbit != null) {
      rabbit.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void committedEventsAreAppliedExactlyOnceAndRolledBackOnesNeverArrive() throws Exception {
    try (ConfigurableApplicationContext app = BrokerItApplication.run(db,
        rabbit.properties("rabbit-it").toArray(String[]::new))) {
      assertThat(app.getBean(Transport.class)).isInstanceOf(RabbitPublisher.class);
      assertThat(app.getBean(TwinboxRelay.class).isRunning()).isTrue();
      TwinboxRabbitInboxConsumer listener = app.getBean(TwinboxRabbitInboxConsumer.class);
      assertThat(listener.consumers()).hasSize(1);
      InboxConsumer consumer = listener.consumers().get(0);
      Orders orders = app.getBean(Orders.class);

      Set<UUID> committed = EffectDatabase.placeOrders(orders, 10);
      db.awaitEffects(committed);
      db.assertAppliedExactlyOnce(committed, orders.rolledBack());
      assertThat(consumer.stats().processed()).isEqualTo(committed.size());

      // The same event once more, through the relay's own publisher: delivered, and skipped by the inbox.
      UUID again = committed.iterator().next();
      long duplicates = consumer.stats().duplicates();
      PublishOutcome outcome = app.getBean(RabbitPublisher.class)
          .send(db.againAsPublished(again)).get(30, TimeUnit.SECONDS);
      assertThat(outcome.kind()).isEqualTo(PublishOutcome.Kind.ACKED);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> consumer.stats().duplicates() > duplicates);
      db.assertAppliedExactlyOnce(committed, orders.rolledBack());
      assertThat(consumer.stats().processed()).isEqualTo(committed.size());
    }
  }
}
