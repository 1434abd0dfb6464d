package io.twinbox.kafka;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker of its own, killed like {@code kill -9}: sends must end as UNAVAILABLE (never RETRY or
 * REJECTED, never hanging) and recover once the broker is back.
 */
class KafkaBrokerOutageTest {
  private static final String TOPIC = "outage";
  private static final int DELIVERY_TIMEOUT_MS = 3_000;
  private static final int MAX_BLOCK_MS = 1_000;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = KafkaBroker.start();
    broker.createTopic(TOPIC, 2);
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @AfterEach
  void bringBack() {
    if (!broker.isRunning()) {
      broker.restart();
    }
  }

  private static KafkaPublisher publisher() {
    return KafkaPublisher.builder(broker.bootstrapServers())
        .property("delivery.timeout.ms", DELIVERY_TIMEOUT_MS)
        .property("max.block.ms", MAX_BLOCK_MS)
        .topicRouter(TopicRouter.fixed(TOPIC))
        .build();
  }

  @Test
  void aKilledBrokerMeansUnavailableWithinTheDeliveryTimeoutAndARestartedOneAcksAgain() throws Exception {
    try (KafkaPublisher publisher = publisher()) {
      assertThat(publisher.send(Messages.full("Order", "o-0", 1)).get(30, SECONDS)).isEqualTo(PublishOutcome.acked());

      broker.kill();
      long start = System.nanoTime();
      List<CompletableFuture<PublishOutcome>> sends = new ArrayList<>();
      for (int i = 1; i <= 20; i++) {
        sends.add(publisher.send(Messages.full("Order", "o-" + i, 1)));
      }
      for (CompletableFuture<PublishOutcome> f : sends) {
        PublishOutcome o = f.get(DELIVERY_TIMEOUT_MS + 5_000, MILLISECONDS);
        assertThat(o.kind()).as(o.reason()).isEqualTo(Kind.UNAVAILABLE);
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(Duration.ofMillis(DELIVERY_TIMEOUT_MS + 5_000));

      broker.restart();
      Set<Kind> seen = EnumSet.noneOf(Kind.class);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      PublishOutcome last;
      int attempt = 0;
      do {
        last = publisher.send(Messages.full("Order", "after-" + attempt++, 1)).get(30, SECONDS);
        seen.add(last.kind());
        if (last.kind() != Kind.ACKED) {
          Thread.sleep(250);
        }
      } while (last.kind() != Kind.ACKED && System.nanoTime() - deadline < 0);
      assertThat(last.kind()).as(last.reason()).isEqualTo(Kind.ACKED);
      assertThat(seen).isSubsetOf(Kind.UNAVAILABLE, Kind.ACKED);
    }
  }

  @Test
  void aNewPublisherFacingADeadBrokerBlocksOnceThenFailsFast() throws Exception {
    broker.kill();
    try (KafkaPublisher publisher = publisher()) {
      long start = System.nanoTime();
      PublishOutcome first = publisher.send(Messages.full("Order", "o-1", 1)).get(30, SECONDS);
      assertThat(first.kind()).as(first.reason()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(MAX_BLOCK_MS + 3_000));

      // Without the gate each of these would block for max.block.ms in send() itself.
      start = System.nanoTime();
      for (int i = 2; i <= 50; i++) {
        CompletableFuture<PublishOutcome> f = publisher.send(Messages.full("Order", "o-" + i, 1));
        assertThat(f).isDone();
        assertThat(f.join().kind()).isEqualTo(Kind.UNAVAILABLE);
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(MAX_BLOCK_MS / 2));

      broker.restart();
      PublishOutcome last;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      do {
        last = publisher.send(Messages.full("Order", "again", 1)).get(30, SECONDS);
        if (last.kind() != Kind.ACKED) {
          Thread.sleep(250);
        }
      } while (last.kind() != Kind.ACKED && System.nanoTime() - deadline < 0);
      assertThat(last.kind()).as(last.reason()).isEqualTo(Kind.ACKED);
    }
  }
}
