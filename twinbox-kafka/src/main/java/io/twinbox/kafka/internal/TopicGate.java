package io.twinbox.kafka.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Keeps one unreachable topic from stalling the relay for a whole wave.
 *
 * <p>{@code KafkaProducer.send} blocks its caller for up to {@code max.block.ms} while it waits for
 * a topic's metadata (or for buffer space) — for example when the broker is down and the producer is
 * new. The relay sends a wave one message after another, so without this gate a wave of 500 would
 * block 500 times. After a send that blocked for the whole {@code max.block.ms} and failed, sends to
 * that topic fail fast as unavailable (no attempt is counted) for the next {@code max.block.ms};
 * then one send tries again. Thread-safe.
 */
public final class TopicGate {
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Long> closedUntil = new ConcurrentHashMap<>();

  /**
   * @param maxBlockMs the producer's {@code max.block.ms}; 0 turns the gate off, since such a
   *     producer never blocks
   */
  public TopicGate(long maxBlockMs, LongSupplier nanoTime) {
    this.windowNanos = maxBlockMs * 1_000_000L;
    this.nanoTime = nanoTime;
  }

  /** True when a send to {@code topic} may go to the producer. */
  public boolean isOpen(String topic) {
    Long until = closedUntil.get(topic);
    if (until == null) {
      return true;
    }
    if (nanoTime.getAsLong() - until >= 0) {
      closedUntil.remove(topic, until);
      return true;
    }
    return false;
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
