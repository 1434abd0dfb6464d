package io.twinbox.internal;

import io.twinbox.RetryPolicy;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Publishes one claimed batch in waves: wave k holds the k-th message of every aggregate in the
 * batch, so messages of one aggregate are never in flight together. An aggregate whose message
 * fails (or whose lease lapses) sends nothing more in this batch: a later message can never
 * overtake an earlier one, even when the earlier one is rejected for good. Unordered messages are
 * each their own aggregate and all go in the first wave.
 *
 * <p><b>Lease-bounded waits.</b> A wave waits for its acknowledgements at most {@code publishTimeout}
 * and, for each message, at most until its partition's lease stops being usable (the keeper's
 * fail-closed deadline, which moves on with every renewal). A message not acknowledged by then is
 * treated as an ambiguous answer — {@code UNAVAILABLE}: no attempt used, republished by whoever
 * holds the lease next — because from then on a successor may claim its aggregate. What the cap
 * cannot do is recall the message: a transport may still deliver it later (Kafka retries it until
 * {@code delivery.timeout.ms}), so the successor's copy is a duplicate, and since this worker sends
 * nothing more of the partition, a duplicate is all it can be (the first delivery keeps its place
 * in the aggregate's order).
 *
 * <p>Not thread-safe: one instance per batch.
 */
final class WavePublisher {

  /** Until when each partition may be published. */
  @FunctionalInterface
  interface Leases {
    /**
     * The {@link Ticker#nanoTime()} until which {@code partition} may be published; a time already
     * past when it may not be published at all. Re-read while waiting: a renewal moves it on.
     */
    long usableUntil(int partition);
  }

  /** A message whose publish failed, and what the store is to record about it (reason included). */
  record Failure(OutboxMessage message, FailedPublish record) {
    String reason() {
      return record.error();
    }
  }

  /**
   * What became of a batch: the acknowledged messages, one {@link Failure} per failed message, and
   * a non-null {@code outage} when the broker was unavailable.
   */
  record Result(List<OutboxMessage> published, List<Failure> failures, String outage, int skipped) {
    static final Result NOTHING = new Result(List.of(), List.of(), null, 0);

    /** What the store records for the failures, in their order. */
    List<FailedPublish> failed() {
      return failures.stream().map(Failure::record).toList();
    }
  }

  private final Transport transport;
  private final RetryPolicy retryPolicy;
  private final Duration publishTimeout;
  private final String source;
  private final boolean deadLetters;
  private final Ticker ticker;

  /** @param deadLetters whether a message that goes to FAILED is also to get a pending dead letter */
  WavePublisher(Transport transport, RetryPolicy retryPolicy, Duration publishTimeout, String source,
      boolean deadLetters) {
    this(transport, retryPolicy, publishTimeout, source, deadLetters, Ticker.SYSTEM);
  }

  /** @param ticker the clock the lease deadlines are on (the lease keeper's) */
  WavePublisher(Transport transport, RetryPolicy retryPolicy, Duration publishTimeout, String source,
      boolean deadLetters, Ticker ticker) {
    this.ticker = ticker;
    this.transport = transport;
    this.retryPolicy = retryPolicy;
    this.publishTimeout = publishTimeout;
    this.source = source;
    this.deadLetters = deadLetters;
  }

  WavePublisher(Transport transport, RetryPolicy retryPolicy, Duration publishTimeout, String source) {
    this(transport, retryPolicy, publishTimeout, source, false);
  }

  /**
   * @param leases tells before each wave whether a partition may still be published, and bounds
   *     the wait for each message's acknowledgement
   */
  Result publish(List<OutboxMessage> batch, Leases leases) throws InterruptedException {
    List<List<OutboxMessage>> waves = waves(batch);
    List<OutboxMessage> published = new ArrayList<>(batch.size());
    List<Failure> failures = new ArrayList<>();
    Set<String> stopped = new HashSet<>();
    String outage = null;
    int skipped = 0;
    for (List<OutboxMessage> wave : waves) {
      List<OutboxMessage> sending = new ArrayList<>(wave.size());
      for (OutboxMessage m : wave) {
        String group = group(m);
        if (stopped.contains(group)) {
          skipped++;
        } else if (leases.usableUntil(m.partition()) - ticker.nanoTime() <= 0) {
          stopped.add(group);
          skipped++;
        } else {
          sending.add(m);
        }
      }
      if (sending.isEmpty()) {
        continue;
      }
      List<PublishOutcome> outcomes = sendAll(sending, leases);
      for (int i = 0; i < sending.size(); i++) {
        OutboxMessage m = sending.get(i);
        PublishOutcome o = outcomes.get(i);
        switch (o.kind()) {
          case ACKED -> published.add(m);
          case RETRY -> {
            int attempts = m.attempts() + 1;
            boolean dead = retryPolicy.exhausted(attempts);
            String reason = Reasons.clip(o.reason());
            failures.add(new Failure(m, new FailedPublish(m.position(), dead,
                dead ? Duration.ZERO : retryPolicy.delayAfter(attempts), reason, deadLetters)));
            stopped.add(group(m));
          }
          case REJECTED -> {
            String reason = Reasons.clip("rejected by the broker: " + o.reason());
            failures.add(new Failure(m, new FailedPublish(m.position(), true, Duration.ZERO, reason, deadLetters)));
            stopped.add(group(m));
          }
          case UNAVAILABLE -> {
            outage = Reasons.clip(o.reason());
            stopped.add(group(m));
          }
        }
      }
      if (outage != null) {
        break; // the broker is down: the rest of the batch waits for the next claim
      }
    }
    return new Result(published, failures, outage, skipped);
  }

  private List<PublishOutcome> sendAll(List<OutboxMessage> sending, Leases leases) throws InterruptedException {
    List<CompletableFuture<PublishOutcome>> futures = new ArrayList<>(sending.size());
    for (OutboxMessage m : sending) {
      CompletableFuture<PublishOutcome> f;
      if (leases.usableUntil(m.partition()) - ticker.nanoTime() <= 0) {
        // Checked per send, not only per wave: a relay paused in the middle of a wave (SIGSTOP, a
        // long GC) must not send the rest of it after its lease ran out.
        futures.add(CompletableFuture.completedFuture(PublishOutcome.unavailable("the lease of partition "
            + m.partition() + " ran out before the send; another relay may hold it")));
        continue;
      }
      try {
        f = transport.send(source.equals(m.source()) ? m : m.withSource(source));
      } catch (RuntimeException e) {
        // A transport must classify its failures; one that throws is treated as unreachable.
        f = CompletableFuture.completedFuture(PublishOutcome.unavailable(Reasons.of(e)));
      }
      futures.add(f);
    }
    transport.flush();
    long deadline = ticker.nanoTime() + publishTimeout.toNanos();
    List<PublishOutcome> outcomes = new ArrayList<>(futures.size());
    for (int i = 0; i < futures.size(); i++) {
      PublishOutcome o = await(futures.get(i), sending.get(i).partition(), deadline, leases);
      outcomes.add(o == null ? PublishOutcome.unavailable("transport returned no outcome") : o);
    }
    return outcomes;
  }

  /** Waits until the publish deadline or the end of the partition's lease, whichever comes first. */
  private PublishOutcome await(CompletableFuture<PublishOutcome> f, int partition, long deadline, Leases leases)
      throws InterruptedException {
    while (true) {
      long now = ticker.nanoTime();
      long leaseEnd = leases.usableUntil(partition);
      long until = deadline - leaseEnd < 0 ? deadline : leaseEnd;
      try {
        return f.get(Math.max(0L, until - now), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        now = ticker.nanoTime();
        if (deadline - now <= 0) {
          return PublishOutcome.unavailable("no broker acknowledgement within " + publishTimeout);
        }
        if (leases.usableUntil(partition) - now <= 0) {
          return PublishOutcome.unavailable("no broker acknowledgement before the lease of partition " + partition
              + " ran out (lease renewals failing?); another relay may take the partition over, so the"
              + " answer is treated as ambiguous and the event is republished");
        }
        // The lease was renewed while we waited: keep waiting, up to the publish deadline.
      } catch (ExecutionException e) {
        return PublishOutcome.unavailable(Reasons.of(e.getCause()));
      }
    }
  }

  /** Groups by aggregate, keeps each group's sequence order, and deals the groups into waves. */
  static List<List<OutboxMessage>> waves(List<OutboxMessage> batch) {
    Map<String, List<OutboxMessage>> groups = new LinkedHashMap<>();
    for (OutboxMessage m : batch) {
      groups.computeIfAbsent(group(m), k -> new ArrayList<>(2)).add(m);
    }
    List<List<OutboxMessage>> waves = new ArrayList<>();
    for (List<OutboxMessage> g : groups.values()) {
      if (g.size() > 1) {
        g.sort(Comparator.comparingLong(OutboxMessage::sequence));
      }
      for (int k = 0; k < g.size(); k++) {
        if (waves.size() <= k) {
          waves.add(new ArrayList<>());
        }
        waves.get(k).add(g.get(k));
      }
    }
    return waves;
  }

  private static String group(OutboxMessage m) {
    return m.aggregateId() == null ? m.id().toString() : m.aggregateType() + '\u0000' + m.aggregateId();
  }
}
