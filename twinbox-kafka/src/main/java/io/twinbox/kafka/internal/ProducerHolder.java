package io.twinbox.kafka.internal;

import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the current Kafka producer and replaces it after a fatal error.
 *
 * <p>A producer whose idempotence state went fatal rejects every later send, so it is retired:
 * closed at once (its unsent records fail and are reported as unavailable, so the relay republishes
 * them) and a fresh producer is created lazily by the next {@link #acquire()}. Thread-safe: sends
 * read the current producer without locking; creating, retiring and closing take a short lock and
 * never close a producer while holding it.
 */
public final class ProducerHolder {
  private static final Logger LOG = LoggerFactory.getLogger(ProducerHolder.class);

  private final Supplier<? extends Producer<String, byte[]>> factory;
  private final Object lock = new Object();
  private volatile Producer<String, byte[]> current;
  private volatile boolean closed;
  private long generation;

  /** Creates the first producer at once, so that a configuration error surfaces at build time. */
  public ProducerHolder(Supplier<? extends Producer<String, byte[]>> factory) {
    this.factory = factory;
    this.current = factory.get();
    this.generation = 1;
  }

  /**
   * The producer to send with, creating one if the last was retired.
   *
   * @throws IllegalStateException when the holder is closed
   * @throws org.apache.kafka.common.KafkaException when a new producer cannot be created
   */
  public Producer<String, byte[]> acquire() {
    Producer<String, byte[]> p = current;
    if (p != null) {
      return p;
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the Kafka publisher is closed");
      }
      if (current == null) {
        current = factory.get();
        generation++;
        LOG.info("Created Kafka producer generation {} after the previous one was retired", generation);
      }
      return current;
    }
  }

  /** True when {@code p} is no longer the current producer (retired, or the holder closed). */
  public boolean isRetired(Producer<String, byte[]> p) {
    return current != p;
  }

  /**
   * Retires {@code p} if it is still current: the next send creates a new producer. Only the first
   * of many concurrent callers (every in-flight record fails with the same error) closes it.
   */
  public void retire(Producer<String, byte[]> p, String reason) {
    long retired;
    synchronized (lock) {
      if (current != p) {
        return;
      }
      current = null;
      retired = generation;
    }
    LOG.warn("Kafka producer generation {} hit a fatal error and is replaced: {}", retired, reason);
    // Zero timeout: waiting would only delay records that are bound to fail, and close() may run
    // on the producer's own I/O thread here, where Kafka forbids a blocking close.
    closeQuietly(p, Duration.ZERO);
  }

  /** Closes the current producer, waiting up to {@code timeout} for records in flight. */
  public void close(Duration timeout) {
    Producer<String, byte[]> p;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      p = current;
      current = null;
    }
    if (p != null) {
      closeQuietly(p, timeout);
    }
  }

  public boolean isClosed() {
    return closed;
  }

  private static void closeQuietly(Producer<String, byte[]> p, Duration timeout) {
    try {
      p.close(timeout);
    } catch (RuntimeException e) {
      LOG.warn("Closing a Kafka producer failed: {}", e.getClass().getSimpleName());
    }
  }
}
