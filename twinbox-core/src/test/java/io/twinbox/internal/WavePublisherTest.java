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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WavePublisherTest {
  private static long position;
  /** Leases that stay usable for the whole test. */
  private static final WavePublisher.Leases HELD = p -> System.nanoTime() + Duration.ofHours(1).toNanos();

  static OutboxMessage msg(String agg, long seq) {
    return new OutboxMessage(++position, UUID.randomUUID(), "Order", agg, seq, 0, "T", 1, "{}", Map.of(),
        null, null, null, Instant.now(), Instant.now(), 0, "/src");
  }

  /** Answers per message from a script; records sends. */
  static class Scripted implements Transport {
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
        .publish(List.of(a1, b1, a2, b2, c1), HELD);
    assertThat(r.published()).containsExactly(b1, c1, b2);
    assertThat(t.sent).doesNotContain(a2);
    assertThat(r.failed()).singleElement().satisfies(f -> {
      assertThat(f.position()).isEqualTo(a1.position());
      assertThat(f.dead()).isTrue(); // maxAttempts 1
    });
    assertThat(r.outage()).isNull();

    Scripted down = new Scripted(Map.of(b1.position(), PublishOutcome.unavailable("broker gone")));
    WavePublisher.Result r2 = new WavePublisher(down, RetryPolicy.ofDefaults(), Duration.ofSeconds(5), "/src")
        .publish(List.of(a1, b1, a2, b2), HELD);
    assertThat(r2.outage()).contains("broker gone");
    assertThat(r2.published()).containsExactly(a1);
    assertThat(down.sent).containsExactly(a1, b1); // the second wave is never sent
    assertThat(r2.failed()).isEmpty();
  }

  @Test
  void aLapsedLeaseStopsPublishingItsPartitionBeforeTheNextWave() throws Exception {
    OutboxMessage a1 = msg("a", 1), a2 = msg("a", 2);
    AtomicLong until = new AtomicLong(System.nanoTime() + Duration.ofHours(1).toNanos());
    Scripted t = new Scripted(Map.of()) {
      @Override
      public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
        until.set(System.nanoTime() - 1); // the lease lapses while the first wave is out
        return super.send(m);
      }
    };
    WavePublisher.Result r = new WavePublisher(t, RetryPolicy.ofDefaults(), Duration.ofSeconds(5), "/src")
        .publish(List.of(a1, a2), p -> until.get());
    assertThat(r.published()).containsExactly(a1); // acknowledged at once, before the wait began
    assertThat(r.skipped()).isEqualTo(1);
    assertThat(Set.copyOf(t.sent)).containsExactly(a1);
  }

  /** Acknowledges each send after its own delay, like a slow broker. */
  static final class Slow implements Transport, AutoCloseable {
    final Map<OutboxMessage, CompletableFuture<PublishOutcome>> acks = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<OutboxMessage, Duration> delays;
    private final ScheduledExecutorService broker = Executors.newSingleThreadScheduledExecutor();

    Slow(Map<OutboxMessage, Duration> delays) {
      this.delays = delays;
    }

    @Override
    public String name() {
      return "slow";
    }

    @Override
    public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
      CompletableFuture<PublishOutcome> f = new CompletableFuture<>();
      acks.put(m, f);
      broker.schedule(() -> f.complete(PublishOutcome.acked()), delays.get(m).toNanos(), TimeUnit.NANOSECONDS);
      return f;
    }

    @Override
    public void close() {
      broker.shutdownNow();
    }
  }

  /**
   * Issue 22 (Low): the publish timeout (30 s by default) is longer than a lease (10 s). A wave
   * whose partition's lease runs out (renewals failing) must stop waiting then and treat the
   * unanswered message as ambiguous: a successor may already be publishing the same aggregate.
   */
  @Test
  void anAckArrivingAfterTheLeaseRanOutIsAmbiguousNotPublished() throws Exception {
    OutboxMessage a1 = msg("a", 1), b1 = msg("b", 1);
    long leaseEnd = System.nanoTime() + Duration.ofMillis(300).toNanos(); // never renewed
    // b1 is acknowledged at once; a1 only after the lease has run out, yet within publishTimeout.
    try (Slow slow = new Slow(Map.of(a1, Duration.ofSeconds(3), b1, Duration.ZERO))) {
      WavePublisher.Result r = new WavePublisher(slow, RetryPolicy.ofDefaults(), Duration.ofSeconds(30), "/src")
          .publish(List.of(a1, b1), p -> leaseEnd);

      assertThat(slow.acks.get(a1)).as("a1's late ack was not waited for").isNotDone();
      assertThat(r.published()).containsExactly(b1);
      assertThat(r.failed()).as("no attempt used").isEmpty();
      assertThat(r.outage()).contains("before the lease of partition 0 ran out");
    }
  }

  /**
   * A relay paused in the middle of a wave (SIGSTOP, a long GC) wakes after its lease ran out: it must
   * not send the rest of the wave (WalRelayFailoverTest saw a thawed streamer send 13 more). Here the
   * first send takes the lease past its end, as such a pause would.
   */
  @Test
  void aLeaseThatRunsOutInTheMiddleOfAWaveSendsNoMoreOfIt() throws Exception {
    OutboxMessage a1 = msg("a", 1), b1 = msg("b", 1), c1 = msg("c", 1);
    long[] leaseEnd = {System.nanoTime() + Duration.ofHours(1).toNanos()};
    Scripted paused = new Scripted(Map.of()) {
      @Override
      public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
        leaseEnd[0] = System.nanoTime() - 1; // the pause: the lease ran out while this send went on
        return super.send(m);
      }
    };
    WavePublisher.Result r = new WavePublisher(paused, RetryPolicy.ofDefaults(), Duration.ofSeconds(30), "/src")
        .publish(List.of(a1, b1, c1), p -> leaseEnd[0]);

    assertThat(paused.sent).as("nothing sent after the lease ran out").containsExactly(a1);
    assertThat(r.failed()).as("no attempt used").isEmpty();
    assertThat(r.outage()).contains("ran out");
  }

  @Test
  void aLeaseRenewedWhileTheWaveWaitsKeepsTheWaitGoing() throws Exception {
    OutboxMessage a1 = msg("a", 1);
    try (Slow slow = new Slow(Map.of(a1, Duration.ofMillis(600)))) {
      // Each renewal moves the end on: it is always 100 ms away and never reached.
      WavePublisher.Result r = new WavePublisher(slow, RetryPolicy.ofDefaults(), Duration.ofSeconds(30), "/src")
          .publish(List.of(a1), p -> System.nanoTime() + Duration.ofMillis(100).toNanos());
      assertThat(r.published()).containsExactly(a1);
      assertThat(r.outage()).isNull();
    }
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
        .publish(List.of(a1), HELD);
    assertThat(r.outage()).contains("no broker acknowledgement");
    assertThat(r.failed()).isEmpty();
  }
}
