package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.InMemoryStore;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The relay's dead-letter counters, fed by a real relay's dead-letter loop (in-memory store). */
class DeadLetterMetricsTest {

  private static double count(SimpleMeterRegistry r, String outcome) {
    return r.get(TwinboxMetricNames.RELAY_DEAD_LETTERS).tag("relay", "orders").tag("outcome", outcome).counter().count();
  }

  @Test
  void failedDeadLetterPublishesAndPublishedOnesAreCounted() throws Exception {
    InMemoryStore store = InMemoryStore.create();
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      Outbox.builder(store).build().write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "o-1")
          .payload("{\"poison\":1}").build());
      c.commit();
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMetrics metrics = new RelayMetrics("orders");
    metrics.bindTo(registry);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.rejected("too large"));
    AtomicInteger sends = new AtomicInteger();
    DeadLetterTransport flaky = new DeadLetterTransport() {
      @Override
      public String name() {
        return "down twice";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
        return CompletableFuture.completedFuture(sends.incrementAndGet() <= 2
            ? PublishOutcome.unavailable("injected") : PublishOutcome.acked());
      }
    };
    try (Relay r = Relay.builder(store, t).pollInterval(Duration.ofMillis(20)).outageBackoffMax(Duration.ofMillis(200))
        .deadLetterTransport(flaky).listener(metrics).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> count(registry, "published") == 1);
      Thread.sleep(300); // sent: never again
    }
    assertThat(count(registry, "failed")).isEqualTo(2);
    assertThat(count(registry, "published")).isEqualTo(1);
    assertThat(sends.get()).isEqualTo(3);
  }
}
