package io.twinbox.jdbc.internal;

import io.twinbox.spi.StoreRules;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that {@code LISTEN}s on the outbox channel and runs a callback for every
 * notification. When the connection breaks it reconnects with backoff; meanwhile the relay's
 * polling keeps everything flowing, so a lost notification costs latency, never a message.
 */
public final class PgNotifyListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PgNotifyListener.class);
  private static final int WAIT_MS = 500;

  private final DataSource dataSource;
  private final String channel;
  private final Runnable callback;
  private final Thread thread;
  private volatile boolean running = true;

  private PgNotifyListener(DataSource dataSource, String channel, Runnable callback) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.callback = callback;
    this.thread = new Thread(this::run, "twinbox-pg-listen");
    this.thread.setDaemon(true);
  }

  public static PgNotifyListener start(DataSource dataSource, String channel, Runnable callback) {
    PgNotifyListener l = new PgNotifyListener(dataSource, channel, callback);
    l.thread.start();
    return l;
  }

  private void run() {
    long backoff = 100;
    while (running) {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
          st.execute("LISTEN " + channel);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        backoff = 100;
        // Anything committed while we were not listening is found by the next claim.
        callback.run();
        while (running) {
          PGNotification[] ns = pg.getNotifications(WAIT_MS);
          if (ns != null && ns.length > 0) {
            callback.run();
          }
        }
        try (Statement st = c.createStatement()) {
          st.execute("UNLISTEN " + channel);
        }
      } catch (SQLException | RuntimeException e) {
        if (!running) {
          return;
        }
        log.warn("LISTEN connection lost; relying on polling, reconnecting in {} ms: {}", backoff, StoreRules.reason(e));
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
        backoff = Math.min(10_000, backoff * 2);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(WAIT_MS * 4L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
