package io.twinbox.kafka.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers, per topic, what the last slow send taught: that the topic is unreachable, or that the
 * cluster said it does not exist. Either way the next sends to it need not block again.
 *
 * <p>{@code KafkaProducer.send} blocks its caller for up to {@code max.block.ms} while it waits for
 * a topic's metadata (or for buffer space) — when the broker is down and the producer is new, and
 * when the topic does not exist and the broker does not create it. The relay sends a wave one
 * message after another, so without this gate a wave of 500 would block 500 times.
 *
 * <ul>
 *   <li><b>Unreachable</b>: after a send that blocked for the whole {@code max.block.ms} and
 *       failed, sends to that topic fail fast as unavailable (no attempt is counted) for the next
 *       {@code max.block.ms}; then one send tries again.
 *   <li><b>Missing</b>: once the cluster has answered that the topic does not exist, sends to it
 *       are rejected at once for {@link #missingWindowNanos()} ({@code max.block.ms}, at least 1 s).
 *       Then exactly one send is told to {@link State#RECHECK} (a quick admin request, no producer
 *       wait) while the others keep being rejected; a topic created in the meantime is therefore
 *       used again within about one window.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class TopicGate {
  /** What a send to a topic should do now. */
  public enum State {
    /** Send through the producer. */
    OPEN,
    /** Fail fast as unavailable: a send just blocked for the whole {@code max.block.ms}. */
    UNREACHABLE,
    /** Reject at once: the cluster recently said the topic does not exist. */
    MISSING,
    /** The "missing" verdict is old: ask the cluster again before sending (this caller only). */
    RECHECK
  }

  private static final long MIN_MISSING_WINDOW_NANOS = 1_000_000_000L;

  private final long windowNanos;
  private final long missingWindowNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Long> closedUntil = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> missingUntil = new ConcurrentHashMap<>();
  /** Topics a broker refused as unknown, not yet confirmed missing: the next send rechecks. */
  private final Set<String> suspected = ConcurrentHashMap.newKeySet();

  /**
   * @param maxBlockMs the producer's {@code max.block.ms}; 0 turns the unreachable gate off, since
   *     such a producer never blocks
   */
  public TopicGate(long maxBlockMs, LongSupplier nanoTime) {
    this.windowNanos = maxBlockMs * 1_000_000L;
    this.missingWindowNanos = Math.max(MIN_MISSING_WINDOW_NANOS, windowNanos);
    this.nanoTime = nanoTime;
  }

  /** How long a "missing" verdict is trusted before the cluster is asked again. */
  public long missingWindowNanos() {
    return missingWindowNanos;
  }

  /** What a send to {@code topic} should do now; see {@link State}. */
  public State state(String topic) {
    long now = nanoTime.getAsLong();
    if (!suspected.isEmpty() && suspected.remove(topic)) {
      return State.RECHECK;
    }
    Long missing = missingUntil.get(topic);
    if (missing != null) {
      if (now - missing < 0) {
        return State.MISSING;
      }
      // Single flight: the caller that moves the deadline rechecks, the others keep rejecting.
      return missingUntil.replace(topic, missing, now + missingWindowNanos) ? State.RECHECK : State.MISSING;
    }
    Long until = closedUntil.get(topic);
    if (until == null) {
      return State.OPEN;
    }
    if (now - until >= 0) {
      closedUntil.remove(topic, until);
      return State.OPEN;
    }
    return State.UNREACHABLE;
  }

  /** True when a send to {@code topic} may go to the producer right now. */
  public boolean isOpen(String topic) {
    return state(topic) == State.OPEN;
  }

  /** The cluster answered that {@code topic} does not exist. */
  public void missing(String topic) {
    suspected.remove(topic);
    missingUntil.put(topic, nanoTime.getAsLong() + missingWindowNanos);
    closedUntil.remove(topic);
  }

  /** The cluster answered that {@code topic} exists (again), or could not tell: send normally. */
  public void forgetMissing(String topic) {
    suspected.remove(topic);
    missingUntil.remove(topic);
  }

  /**
   * A broker refused a record of {@code topic} as unknown (the producer had metadata for it, e.g.
   * the topic was deleted): the next send asks the cluster before it goes to the producer.
   */
  public void suspectMissing(String topic) {
    if (!missingUntil.containsKey(topic)) {
      suspected.add(topic);
    }
  }

  /**
   * Records how a send went.
   *
   * @param startNanos {@code nanoTime} just before {@code producer.send}
   * @param failedInCall true when the send's outcome, other than an acknowledgement, was already
   *     known when {@code producer.send} returned
   */
  public void record(String topic, long startNanos, boolean failedInCall) {
    if (windowNanos <= 0 || !failedInCall) {
      return;
    }
    long now = nanoTime.getAsLong();
    if (now - startNanos >= windowNanos) {
      closedUntil.put(topic, now + windowNanos);
    }
  }
}
