package io.twinbox.spring.it;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import io.twinbox.nats.NatsPublisher;
import io.twinbox.nats.NatsStreams;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.spring.nats.TwinboxNatsInboxConsumer;
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
 * The starter end to end on real NATS JetStream (127.0.0.1:4222) and PostgreSQL: events written in
 * {@code @Transactional} methods are published by the relay bean to a fresh stream and consumed by
 * the starter's inbox listener (a durable pull consumer), whose handler writes one effect row with
 * JdbcTemplate. Committed events are applied exactly once, rolled-back ones never. A republish with
 * the same id is dropped by JetStream's duplicate window; a second copy stored past that window
 * (here: without {@code Nats-Msg-Id}) is delivered and skipped by the inbox.
 */
class NatsInboxTest {
  private static EffectDatabase db;
  private static Connection admin;
  private static String prefix;
  private static String stream;

  @BeforeAll
  static void servers() throws Exception {
    LocalServers.require("NATS", "127.0.0.1", 4222);
    db = EffectDatabase.create();
    admin = Nats.connect("nats://127.0.0.1:4222");
    String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    prefix = "springit" + id;
    stream = "SPRING_IT_" + id.toUpperCase();
    NatsStreams.ensure(admin, stream, prefix + ".>");
  }

  @AfterAll
  static void cleanUp() throws Exception {
    if (admin != null) {
      NatsStreams.delete(admin, stream);
      admin.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void committedEventsAreAppliedExactlyOnceAndRolledBackOnesNeverArrive() throws Exception {
    try (ConfigurableApplicationContext app = BrokerItApplication.run(db, "twinbox.inbox.consumer=nats-it",
        "twinbox.nats.url=nats://127.0.0.1:4222", "twinbox.nats.subject-prefix=" + prefix,
        "twinbox.nats.consumer.stream=" + stream)) {
      assertThat(app.getBean(Transport.class)).isInstanceOf(NatsPublisher.class);
      assertThat(app.getBean(TwinboxRelay.class).isRunning()).isTrue();
      InboxConsumer consumer = app.getBean(TwinboxNatsInboxConsumer.class).consumer();
      Orders orders = app.getBean(Orders.class);

      Set<UUID> committed = EffectDatabase.placeOrders(orders, 10);
      db.awaitEffects(committed);
      db.assertAppliedExactlyOnce(committed, orders.rolledBack());
      assertThat(consumer.stats().processed()).isEqualTo(committed.size());
      assertThat(admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount())
          .isEqualTo(committed.size());

      // The first stored event once more through the relay's publisher: JetStream drops it (same Nats-Msg-Id).
      MessageInfo first = admin.jetStreamManagement().getMessage(stream, 1);
      UUID again = UUID.fromString(first.getHeaders().getFirst("ce-id"));
      assertThat(committed).contains(again);
      NatsPublisher publisher = app.getBean(NatsPublisher.class);
      PublishOutcome outcome = publisher.send(db.againAsPublished(again))
          .get(30, TimeUnit.SECONDS);
      assertThat(outcome.kind()).isEqualTo(PublishOutcome.Kind.ACKED);
      assertThat(publisher.stats().duplicates()).isEqualTo(1);

      // The same stored message again without Nats-Msg-Id, as after the duplicate window: the inbox skips it.
      Headers copy = new Headers();
      first.getHeaders().entrySet().stream().filter(h -> !h.getKey().equals("Nats-Msg-Id"))
          .forEach(h -> copy.put(h.getKey(), h.getValue()));
      long duplicates = consumer.stats().duplicates();
      admin.publish(first.getSubject(), copy, first.getData());
      admin.flush(Duration.ofSeconds(5));
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> consumer.stats().duplicates() > duplicates);
      assertThat(admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount())
          .isEqualTo(committed.size() + 1);
      db.assertAppliedExactlyOnce(committed, orders.rolledBack());
      assertThat(consumer.stats().processed()).isEqualTo(committed.size());
    }
  }
}
