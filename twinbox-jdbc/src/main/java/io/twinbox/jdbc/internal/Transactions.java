package io.twinbox.jdbc.internal;

import io.twinbox.SchemaNotMigratedException;
import io.twinbox.StoreException;
import io.twinbox.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import javax.sql.DataSource;

/** Short transactions on pooled connections, with errors mapped by SQLSTATE. */
public final class Transactions {
  /** Longest cause or next-exception chain followed; a bound against cyclic chains. */
  private static final int MAX_LINKS = 50;

  private Transactions() {}

  /** Work on a connection inside a transaction. */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Work on a connection outside any transaction. */
  @FunctionalInterface
  public interface SqlAction {
    void run(Connection c) throws SQLException;
  }

  /** Runs {@code work} in its own transaction and commits; rolls back on any failure. */
  public static <T> T run(DataSource dataSource, SqlDialect dialect, String what, SqlWork<T> work) {
    return run(dataSource, dialect, what, work, c -> {});
  }

  /**
   * As {@link #run(DataSource, SqlDialect, String, SqlWork)}, then runs {@code after} on the same
   * connection once the transaction has ended, committed or not; its failure fails the call.
   */
  public static <T> T run(DataSource dataSource, SqlDialect dialect, String what, SqlWork<T> work,
      SqlAction after) {
    try (Connection c = dataSource.getConnection()) {
      T result;
      try {
        result = inTransaction(c, work);
      } catch (SQLException | RuntimeException e) {
        try {
          after.run(c);
        } catch (SQLException ae) {
          e.addSuppressed(ae);
        }
        throw e;
      }
      after.run(c);
      return result;
    } catch (SQLException e) {
      throw map(dialect, what, e);
    }
  }

  private static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    if (autoCommit) {
      c.setAutoCommit(false);
    }
    try {
      T result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException re) {
        e.addSuppressed(re);
      }
      throw e;
    } finally {
      if (autoCommit) {
        c.setAutoCommit(true);
      }
    }
  }

  /** Maps a driver error to the typed exception a caller can act on. */
  public static RuntimeException map(SqlDialect dialect, String what, SQLException e) {
    if (dialect.isMissingTable(e)) {
      return new SchemaNotMigratedException("could not " + what + ": a Twinbox table or column is missing", e);
    }
    return new StoreException("could not " + what + " (SQLSTATE " + sqlState(e) + ")", e);
  }

  /**
   * The first SQLSTATE found along {@code e}'s cause chain, looking at each {@link SQLException}'s
   * next-exception chain too; null when none has one. A pool's "connection is not available"
   * exception has no SQLSTATE of its own but carries the driver's error (e.g. 08006, connection
   * failure) as its cause, so the first link alone would say {@code null}. No driver class is used.
   */
  public static String sqlState(Throwable e) {
    Set<Throwable> causes = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && causes.size() < MAX_LINKS && causes.add(t); t = t.getCause()) {
      if (t instanceof SQLException s) {
        Set<SQLException> next = Collections.newSetFromMap(new IdentityHashMap<>());
        for (SQLException n = s; n != null && next.size() < MAX_LINKS && next.add(n); n = n.getNextException()) {
          if (n.getSQLState() != null) {
            return n.getSQLState();
          }
        }
      }
    }
    return null;
  }
}
