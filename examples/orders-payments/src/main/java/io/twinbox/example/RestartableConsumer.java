package io.twinbox.example;

import io.twinbox.InboxConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's Kafka inbox consumer that can be restarted: {@link #restart()} closes it gracefully
 * and starts a new one; {@link #reviveIfDead()} replaces an instance whose thread died (the demo's
 * chaos kills consumer threads right after a database commit, before the offset commit, and this
 * plays the part of the process supervisor). Sums the counters of every instance.
 *
 * <p>Thread-safe.
 */
final class RestartableConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RestartableConsumer.class);

  /** Counters summed over every instance. */
  record Totals(long processed, long duplicates, long parked, long retries) {
    Totals plus(InboxConsumer.Stats s) {
      return new Totals(processed + s.processed(), duplicates + s.duplicates(), parked + s.parked(),
          retries + s.retries());
    }
  }

  private final String name;
  private final Supplier<InboxConsumer> consumers;
  private InboxConsumer current;
  private Totals before = new Totals(0, 0, 0, 0);
  private int restarts;
  private int revivals;
  private boolean closed;

  /**
   * @param name for logs
   * @param consumers builds a new, unstarted consumer for each instance
   */
  RestartableConsumer(String name, Supplier<InboxConsumer> consumers) {
    this.name = name;
    this.consumers = consumers;
  }

  synchronized void start() {
    if (closed) {
      throw new IllegalStateException("consumer " + name + " closed");
    }
    current = consumers.get();
    current.start();
  }

  /** Graceful restart: the running transaction finishes and its offsets are committed first. */
  synchronized void restart() {
    if (closed) {
      return;
    }
    stop();
    restarts++;
    start();
  }

  /** Starts a new instance if the current one's thread has died; true if it did. */
  synchronized boolean reviveIfDead() {
    if (closed || current == null || current.isRunning()) {
      return false;
    }
    log.debug("consumer {} died; starting a new instance", name);
    stop();
    revivals++;
    start();
    return true;
  }

  synchronized Totals totals() {
    return current == null ? before : before.plus(current.stats());
  }

  synchronized int restarts() {
    return restarts;
  }

  synchronized int revivals() {
    return revivals;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      stop();
    }
  }

  private void stop() {
    if (current != null) {
      try {
        current.close();
      } catch (RuntimeException e) {
        // A consumer whose thread died has closed its Kafka client already; nothing is lost here.
        log.debug("closing consumer {}: {}", name, e.toString());
      }
      before = before.plus(current.stats());
      current = null;
    }
  }
}
