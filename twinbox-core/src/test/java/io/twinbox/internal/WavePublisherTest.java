package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.RetryPolicy;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class WavePublisherTest {
  private static long position;

  static OutboxMessage msg(String agg, long seq) {
    return new OutboxMessage(++position, UUID.randomUUID(), "Order", agg, seq, 0, "T", 1, "{}", Map.of(),
        null, null, null, Instant.now(), Instant.now(), 0, "/src");
  }

  /** Answers per message from a script; records sends. */
  static final class Scripted implements Transport {
    final List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
    final Map<Long, PublishOutcome> script;

    Scripted(Map<Long, PublishOutcome> script) {
      this.script = script;
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
      sent.add(m);
      return CompletableFuture.completedFuture(script.getOrDefault(m.position(), PublishOutcome.acked()));
    }

    @Override
    public void close() {}
  }

  @Test
  void wavesNeverHoldTwoMessagesOfOneAggregate() {
    List<OutboxMessage> batch = List.of(msg("a", 1), msg("b", 1), msg("a", 2), msg("a", 3), msg("c", 7));
    List<List<OutboxMessage>> waves = WavePublisher.waves(batch);
    assertThat(waves).hasSize(3);
    assertThat(waves.get(0)).extracting(OutboxMessage::aggregateId).containsExactly("a", "b", "c");
    assertThat(waves.get(1)).extracting(OutboxMessage::sequence).containsExactly(2L);
    assertThat(waves.get(2)).extracting(OutboxMessage::sequence).containsExactly(3L);
  }

  @Test
  void aFailureStopsOnlyItsAggregateAndAnOutageStopsTheBatch() throws Exception {
    OutboxMessage a1 = msg("a", 1), a2 = msg("a", 2), b1 = msg("b", 1), b2 = msg("b", 2), c1 = msg("c", 1);
    Scripted t = new Scripted(Map.of(a1.position(), PublishOutcome.retry("boom")));
    RetryPolicy policy = RetryPolicy.builder().maxAttempts(1).build();
    WavePublisher.Result r = new WavePublisher(t, policy, Duration.ofSeconds(5), "/src")
        .publish(List.of(a1, b1, a2, b2, c1), p -> true);
    assertThat(r.published()).containsExactly(b1, c1, b2);
    assertThat(t.sent).doesNotContain(a2);
    assertThat(r.failed()).singleElement().satisfies(f -> {
      assertThat(f.position()).isEqualTo(a1.position());
      assertThat(f.dead()).isTrue(); // maxAttempts 1
    });
    assertThat(r.outage()).isNull();

    Scripted down = new Scripted(Map.of(b1.position(), PublishOutcome.unavailable("broker gone")));
    WavePublisher.Result r2 = new WavePublisher(down, RetryPolicy.ofDefaults(), Duration.ofSeconds(5), "/src")
        .publish(List.of(a1, b1, a2, b2), p -> true);
    assertThat(r2.outage()).contains("broker gone");
    assertThat(r2.published()).containsExactly(a1);
    assertThat(down.sent).containsExactly(a1, b1); // the second wave is never sent
    assertThat(r2.failed()).isEmpty();
  }

  @Test
  void aLapsedLeaseStopsPublishingItsPartitionBeforeTheNextWave() throws Exception {
    OutboxMessage a1 = msg("a", 1), a2 = msg("a", 2);
    Scripted t = new Scripted(Map.of());
    List<Boolean> answers = new ArrayList<>(List.of(true, false));
    WavePublisher.Result r = new WavePublisher(t, RetryPolicy.ofDefaults(), Duration.ofSeconds(5), "/src")
        .publish(List.of(a1, a2), p -> answers.remove(0));
    assertThat(r.published()).containsExactly(a1);
    assertThat(r.skipped()).isEqualTo(1);
    assertThat(Set.copyOf(t.sent)).containsExactly(a1);
  }

  @Test
  void anUnansweredSendIsAnOutageNotAnAttempt() throws Exception {
    OutboxMessage a1 = msg("a", 1);
    Transport silent = new Transport() {
      @Override
      public String name() {
        return "silent";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
        return new CompletableFuture<>();
      }

      @Override
      public void close() {}
    };
    WavePublisher.Result r = new WavePublisher(silent, RetryPolicy.ofDefaults(), Duration.ofMillis(100), "/src")
        .publish(List.of(a1), p -> true);
    assertThat(r.outage()).contains("no broker acknowledgement");
    assertThat(r.failed()).isEmpty();
  }
}
