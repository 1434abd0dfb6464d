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
import java.util.function.IntPredicate;

/**
 * Publishes one claimed batch in waves: wave k holds the k-th message of every aggregate in the
 * batch, so messages of one aggregate are never in flight together. An aggregate whose message
 * fails (or whose lease lapses) sends nothing more in this batch: a later message can never
 * overtake an earlier one, even when the earlier one is rejected for good. Unordered messages are
 * each their own aggregate and all go in the first wave.
 *
 * <p>Not thread-safe: one instance per batch.
 */
final class WavePublisher {

  /** What became of a batch. {@code outage} is non-null when the broker was unavailable. */
  record Result(List<OutboxMessage> published, List<FailedPublish> failed,
      List<OutboxMessage> failedMessages, List<String> failedReasons, String outage, int skipped) {}

  private final Transport transport;
  private final RetryPolicy retryPolicy;
  private final Duration publishTimeout;
  private final String source;

  WavePublisher(Transport transport, RetryPolicy retryPolicy, Duration publishTimeout, String source) {
    this.transport = transport;
    this.retryPolicy = retryPolicy;
    this.publishTimeout = publishTimeout;
    this.source = source;
  }

  /**
   * @param leaseValid tells before each wave whether a partition may still be published
   */
  Result publish(List<OutboxMessage> batch, IntPredicate leaseValid) throws InterruptedException {
    List<List<OutboxMessage>> waves = waves(batch);
    List<OutboxMessage> published = new ArrayList<>(batch.size());
    List<FailedPublish> failed = new ArrayList<>();
    List<OutboxMessage> failedMessages = new ArrayList<>();
    List<String> failedReasons = new ArrayList<>();
    Set<String> stopped = new HashSet<>();
    String outage = null;
    int skipped = 0;
    for (List<OutboxMessage> wave : waves) {
      List<OutboxMessage> sending = new ArrayList<>(wave.size());
      for (OutboxMessage m : wave) {
        String group = group(m);
        if (stopped.contains(group)) {
          skipped++;
        } else if (!leaseValid.test(m.partition())) {
          stopped.add(group);
          skipped++;
        } else {
          sending.add(m);
        }
      }
      if (sending.isEmpty()) {
        continue;
      }
      List<PublishOutcome> outcomes = sendAll(sending);
      for (int i = 0; i < sending.size(); i++) {
        OutboxMessage m = sending.get(i);
        PublishOutcome o = outcomes.get(i);
        switch (o.kind()) {
          case ACKED -> published.add(m);
          case RETRY -> {
            int attempts = m.attempts() + 1;
            boolean dead = retryPolicy.exhausted(attempts);
            String reason = Reasons.clip(o.reason());
            failed.add(new FailedPublish(m.position(), dead,
                dead ? Duration.ZERO : retryPolicy.delayAfter(attempts), reason));
            failedMessages.add(m);
            failedReasons.add(reason);
            stopped.add(group(m));
          }
          case REJECTED -> {
            String reason = Reasons.clip("rejected by the broker: " + o.reason());
            failed.add(new FailedPublish(m.position(), true, Duration.ZERO, reason));
            failedMessages.add(m);
            failedReasons.add(reason);
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
    return new Result(published, failed, failedMessages, failedReasons, outage, skipped);
  }

  private List<PublishOutcome> sendAll(List<OutboxMessage> sending) throws InterruptedException {
    List<CompletableFuture<PublishOutcome>> futures = new ArrayList<>(sending.size());
    for (OutboxMessage m : sending) {
      CompletableFuture<PublishOutcome> f;
      try {
        f = transport.send(source.equals(m.source()) ? m : m.withSource(source));
      } catch (RuntimeException e) {
        // A transport must classify its failures; one that throws is treated as unreachable.
        f = CompletableFuture.completedFuture(PublishOutcome.unavailable(Reasons.of(e)));
      }
      futures.add(f);
    }
    transport.flush();
    long deadline = System.nanoTime() + publishTimeout.toNanos();
    List<PublishOutcome> outcomes = new ArrayList<>(futures.size());
    for (CompletableFuture<PublishOutcome> f : futures) {
      long left = deadline - System.nanoTime();
      PublishOutcome o;
      try {
        o = f.get(Math.max(0L, left), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        o = PublishOutcome.unavailable("no broker acknowledgement within " + publishTimeout);
      } catch (ExecutionException e) {
        o = PublishOutcome.unavailable(Reasons.of(e.getCause()));
      }
      outcomes.add(o == null ? PublishOutcome.unavailable("transport returned no outcome") : o);
    }
    return outcomes;
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
