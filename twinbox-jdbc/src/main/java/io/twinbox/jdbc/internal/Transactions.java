package io.twinbox.jdbc.internal;

import io.twinbox.SchemaNotMigratedException;
import io.twinbox.StoreException;
import io.twinbox.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Short transactions on pooled connections, with errors mapped by SQLSTATE. */
public final class Transactions {
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

  /** SQLSTATE of the first error in a chain, without any driver-specific class. */
  private static String sqlState(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }
}
