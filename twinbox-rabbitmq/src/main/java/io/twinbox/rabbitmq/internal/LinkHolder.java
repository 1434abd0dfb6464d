package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the publisher's current {@link ConfirmLink}: opens one lazily, replaces a dead one, and after
 * a failed connect fails fast for {@code reconnectBackoff} instead of letting every send of a wave
 * wait for its own connection timeout. Thread-safe.
 */
public final class LinkHolder {
  private static final Logger LOG = LoggerFactory.getLogger(LinkHolder.class);

  private final ConnectionFactory factory;
  private final String connectionName;
  private final long backoffNanos;
  private final ConfirmTracker.Counters counters;
  private final LongSupplier nanoTime;
  private final Object lock = new Object();
  private volatile ConfirmLink current;
  private volatile boolean closed;
  private long failedAt;
  private String lastFailure;
  private long opened;

  public LinkHolder(ConnectionFactory factory, String connectionName, Duration reconnectBackoff,
      ConfirmTracker.Counters counters, LongSupplier nanoTime) {
    this.factory = factory;
    this.connectionName = connectionName;
    this.backoffNanos = reconnectBackoff.toNanos();
    this.counters = counters;
    this.nanoTime = nanoTime;
  }

  /**
   * The open link, connecting if needed.
   *
   * @throws IOException when the broker cannot be reached (now, or at the last attempt within the
   *     backoff)
   * @throws IllegalStateException when the holder is closed
   */
  public ConfirmLink acquire() throws IOException {
    ConfirmLink link = current;
    if (link != null && link.isOpen()) {
      return link;
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the RabbitMQ publisher is closed");
      }
      link = current;
      if (link != null && link.isOpen()) {
        return link;
      }
      if (link != null) {
        link.close();
        current = null;
      }
      long now = nanoTime.getAsLong();
      if (lastFailure != null && now - failedAt < backoffNanos) {
        throw new IOException("RabbitMQ unreachable (failing fast for the reconnect backoff); last attempt: "
            + lastFailure);
      }
      try {
        link = ConfirmLink.open(factory, connectionName, counters);
      } catch (IOException | TimeoutException | RuntimeException e) {
        failedAt = now;
        lastFailure = ConfirmLink.describe(e);
        LOG.warn("cannot connect to RabbitMQ at {}:{}: {}", factory.getHost(), factory.getPort(), lastFailure);
        throw new IOException("cannot connect to RabbitMQ: " + lastFailure, e);
      }
      lastFailure = null;
      opened++;
      if (opened > 1) {
        LOG.info("RabbitMQ publisher reconnected to {}:{} (connection {})", factory.getHost(), factory.getPort(),
            opened);
      }
      current = link;
      return link;
    }
  }

  /** Connections opened so far. */
  public long opened() {
    synchronized (lock) {
      return opened;
    }
  }

  public boolean isClosed() {
    return closed;
  }

  public void close() {
    ConfirmLink link;
    synchronized (lock) {
      closed = true;
      link = current;
      current = null;
    }
    if (link != null) {
      link.close();
    }
  }
}
