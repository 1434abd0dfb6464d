package io.twinbox.spring.it;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.spring.rabbitmq.TwinboxRabbitInboxConsumer;
import io.twinbox.testkit.LocalServers;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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
  private static Connection admin;
  private static RabbitTopology topology;

  @BeforeAll
  static void servers() throws Exception {
    LocalServers.require("RabbitMQ", "127.0.0.1", 5672);
    db = EffectDatabase.create();
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    admin = factory.newConnection("twinbox-spring-it-admin");
    String name = "spring-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    topology = RabbitTopology.builder(name).queue(name + ".q").build();
    topology.declare(admin);
  }

  @AfterAll
  static void cleanUp() throws Exception {
    if (admin != null) {
      topology.delete(admin);
      admin.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void committedEventsAreAppliedExactlyOnceAndRolledBackOnesNeverArrive() throws Exception {
    try (ConfigurableApplicationContext app = BrokerItApplication.run(db, "twinbox.inbox.consumer=rabbit-it",
        "twinbox.rabbitmq.host=127.0.0.1", "twinbox.rabbitmq.port=5672", "twinbox.rabbitmq.username=guest",
        "twinbox.rabbitmq.password=guest", "twinbox.rabbitmq.exchange=" + topology.exchange(),
        "twinbox.rabbitmq.consumer.queues=" + topology.queue())) {
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
