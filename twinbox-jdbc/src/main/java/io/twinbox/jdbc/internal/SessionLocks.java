package io.twinbox.jdbc.internal;

import io.twinbox.jdbc.SqlDialect;
import io.twinbox.spi.ExclusiveLock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ExclusiveLock} over a dialect's session-level lock: one pooled connection of its own,
 * in auto-commit, holds the lock from {@link #tryLock} to {@link ExclusiveLock.Held#close()} and
 * returns to the pool only after the lock was released (a connection that cannot release it is
 * closed by the pool's eviction or the server when it breaks, which releases it). Thread-safe.
 */
public final class SessionLocks implements ExclusiveLock {
  private static final Logger log = LoggerFactory.getLogger(SessionLocks.class);

  private final DataSource dataSource;
  private final SqlDialect dialect;

  public SessionLocks(DataSource dataSource, SqlDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  @Override
  public Optional<Held> tryLock(String name) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(true);
      if (!queryFlag(c, dialect.exclusiveLockSql().tryLock(), name)) {
        c.close();
        return Optional.empty();
      }
      return Optional.of(new SessionHeld(c, name));
    } catch (SQLException e) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException ce) {
          e.addSuppressed(ce);
        }
      }
      throw Transactions.map(dialect, "take the lock " + name, e);
    }
  }

  /** Runs a one-value query with {@code name} as its parameter; true when it answered 1 (or true). */
  private static boolean queryFlag(Connection c, String sql, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getInt(1) == 1;
      }
    }
  }

  private final class SessionHeld implements Held {
    private final Connection connection;
    private final String name;
    private boolean released;

    SessionHeld(Connection connection, String name) {
      this.connection = connection;
      this.name = name;
    }

    @Override
    public synchronized void close() {
      if (released) {
        return;
      }
      released = true;
      try (Connection c = connection) {
        queryFlag(c, dialect.exclusiveLockSql().release(), name);
      } catch (SQLException e) {
        // The lock goes with the session: a broken connection has released it already.
        log.warn("could not release the lock {} (SQLSTATE {}); it is released when its connection ends", name,
            e.getSQLState());
      }
    }
  }
}
