package io.twinbox.jdbc.internal;

import java.sql.SQLException;
import java.util.Optional;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Reads PostgreSQL's structured error fields (never the message text). */
public final class PgErrors {
  private PgErrors() {}

  /** The violated constraint's name, from the server's structured error report. */
  public static Optional<String> constraintOf(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s instanceof PSQLException p) {
        ServerErrorMessage m = p.getServerErrorMessage();
        if (m != null && m.getConstraint() != null) {
          return Optional.of(m.getConstraint());
        }
      }
    }
    return Optional.empty();
  }

  /** The SQLSTATE of the first error in the chain that has one. */
  public static String sqlState(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }
}
