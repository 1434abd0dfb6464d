package io.twinbox.faults;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The producer's PostgreSQL tables and session kill, shared by the shared and the private cluster. */
final class PgDdl {
  static final String ORDERS = "CREATE TABLE orders (message_id uuid PRIMARY KEY, aggregate_id text,"
      + " sequence bigint NOT NULL, poison boolean NOT NULL)";
  /** Two equal values in it make the transaction fail at COMMIT (FAULTS A1). */
  static final String COMMIT_BOMB = "CREATE TABLE commit_bomb (ref bigint UNIQUE DEFERRABLE INITIALLY DEFERRED)";

  private PgDdl() {}

  /** {@code pg_terminate_backend} of the sessions whose application name is a relay's. */
  static int terminateRelaySessions(DataSource ds) {
    String sql = "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
        + " WHERE datname = current_database() AND application_name LIKE 'faults-relay-%'";
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
