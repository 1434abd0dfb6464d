package io.twinbox.kafka;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, Medium-5: on a broker that does not create topics ({@code auto.create.topics.enable=
 * false}), a topic that does not exist is a rejection of its own events, not an outage — and an
 * unreachable cluster still is an outage. The relay-level proof (1 % of a batch to a missing
 * topic, the rest published in the same batch, no outage counted) is
 * {@code TransportContract.aMissingDestinationFailsOnlyItsOwnEventsAndTheRestOfTheBatchIsPublished}
 * in {@link KafkaTransportTest}.
 */
class KafkaMissingTopicTest {
  private static final int MAX_BLOCK_MS = 1_500;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = KafkaBroker.startWithoutAutoCreate();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  private static KafkaPublisher publisher(String existing, String missing) {
    return KafkaPublisher.builder(broker.bootstrapServers())
        .property("max.block.ms", MAX_BLOCK_MS).property("delivery.timeout.ms", 5_000)
        .topicRouter(m -> m.aggregateType().equals("Lost") ? missing : existing).build();
  }

  private static String name(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void aMissingTopicIsRejectedNamingItAndItsLaterEventsDoNotWaitAgain() throws Exception {
    String existing = name("present");
    String missing = name("absent");
    broker.createTopic(existing, 2);
    try (KafkaPublisher p = publisher(existing, missing)) {
      PublishOutcome first = p.send(Messages.full("Lost", "l-1", 1)).get(30, SECONDS);
      assertThat(first.kind()).as(first.reason()).isEqualTo(Kind.REJECTED);
      assertThat(first.reason()).contains("'" + missing + "' does not exist");

      // The verdict is remembered: each of these is answered inside send() (before this used to
      // block max.block.ms per event and end as an outage).
      for (int i = 2; i <= 30; i++) {
        CompletableFuture<PublishOutcome> f = p.send(Messages.full("Lost", "l-" + i, 1));
        assertThat(f).isDone();
        assertThat(f.join().kind()).isEqualTo(Kind.REJECTED);
      }
      assertThat(p.send(Messages.full("Order", "o-1", 1)).get(30, SECONDS)).isEqualTo(PublishOutcome.acked());
    }
  }

  @Test
  void aTopicCreatedAfterItsEventsWereRejectedIsUsedAgain() throws Exception {
    String existing = name("present");
    String late = name("late");
    broker.createTopic(existing, 2);
    try (KafkaPublisher p = publisher(existing, late)) {
      assertThat(p.send(Messages.full("Lost", "l-1", 1)).get(30, SECONDS).kind()).isEqualTo(Kind.REJECTED);
      broker.createTopic(late, 2);
      // Within about one verdict window (max.block.ms here) one send rechecks and finds it.
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .until(() -> p.send(Messages.full("Lost", "l-2", 1)).get(30, SECONDS).kind() == Kind.ACKED);
    }
  }

  @Test
  void whileTheClusterDoesNotAnswerAMissingTopicIsAnOutageNotARejection() throws Exception {
    String existing = name("present");
    String missing = name("absent");
    broker.createTopic(existing, 2);
    broker.kill();
    try (KafkaPublisher p = publisher(existing, missing)) {
      PublishOutcome down = p.send(Messages.full("Lost", "l-1", 1)).get(30, SECONDS);
      assertThat(down.kind()).as(down.reason()).isEqualTo(Kind.UNAVAILABLE);

      broker.restart();
      // Once the cluster answers again, its "no such topic" is a rejection.
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
        PublishOutcome o = p.send(Messages.full("Lost", "l-2", 1)).get(30, SECONDS);
        assertThat(o.kind()).as(o.reason()).isEqualTo(Kind.REJECTED);
      });
    } finally {
      if (!broker.isRunning()) {
        broker.restart();
      }
    }
  }
}
