package io.twinbox.nats.internal;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A NATS connection that a client owns: either the user's (never closed here) or one opened lazily
 * from a URL on first use, so that building a client needs no server. Once connected, the NATS
 * client reconnects by itself forever. After a failed first connect, callers fail fast for one
 * second instead of each waiting for its own connect timeout. Thread-safe.
 */
public final class ConnectionHolder {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionHolder.class);
  private static final long BACKOFF_NANOS = Duration.ofSeconds(1).toNanos();

  private final Options options;
  private final String shownUrl;
  private final boolean owned;
  private volatile Connection current;
  private volatile boolean closed;
  private long failedAt;
  private String lastFailure;

  private ConnectionHolder(Connection connection, Options options, String shownUrl) {
    this.current = connection;
    this.options = options;
    this.shownUrl = shownUrl;
    this.owned = connection == null;
  }

  /** Wraps the user's connection. */
  public static ConnectionHolder of(Connection connection) {
    return new ConnectionHolder(connection, null, NatsConnections.redact(String.valueOf(connection.getConnectedUrl())));
  }

  /** Connects to {@code url} on first use. The URL is never shown with its user info. */
  public static ConnectionHolder lazy(String url, String connectionName) {
    return new ConnectionHolder(null, NatsConnections.options(url, connectionName), NatsConnections.redact(url));
  }

  /**
   * The connection, connecting first if needed.
   *
   * @throws IOException when the server cannot be reached (now, or within a second of a failure)
   * @throws IllegalStateException when closed
   */
  public Connection acquire() throws IOException {
    Connection c = current;
    if (c != null) {
      return c;
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      if (current != null) {
        return current;
      }
      long now = System.nanoTime();
      if (lastFailure != null && now - failedAt < BACKOFF_NANOS) {
        throw new IOException("NATS unreachable at " + shownUrl + " (failing fast); last attempt: " + lastFailure);
      }
      try {
        current = Nats.connect(options);
        lastFailure = null;
        return current;
      } catch (IOException e) {
        failedAt = now;
        lastFailure = e.getClass().getSimpleName() + ": " + e.getMessage();
        LOG.warn("cannot connect to NATS at {}: {}", shownUrl, lastFailure);
        throw new IOException("cannot connect to NATS at " + shownUrl + ": " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while connecting to NATS at " + shownUrl, e);
      }
    }
  }

  /** The connection if there is one yet, else null. */
  public Connection currentOrNull() {
    return current;
  }

  public String shownUrl() {
    return shownUrl;
  }

  public boolean owned() {
    return owned;
  }

  /** Closes the connection if this holder opened it. Idempotent. */
  public void close() {
    Connection c;
    synchronized (this) {
      closed = true;
      c = current;
    }
    if (owned && c != null) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
