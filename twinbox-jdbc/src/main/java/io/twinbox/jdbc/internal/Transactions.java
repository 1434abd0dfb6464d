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

  /** Runs {@code work} in its own transaction and commits; rolls back on any failure. */
  public static <T> T run(DataSource dataSource, SqlDialect dialect, String what, SqlWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
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
    } catch (SQLException e) {
      throw map(dialect, what, e);
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
