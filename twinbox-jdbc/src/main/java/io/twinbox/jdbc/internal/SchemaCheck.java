package io.twinbox.jdbc.internal;

import io.twinbox.SchemaNotMigratedException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The schema check both dialects run the same way: their query (its text is the dialect's) answers
 * the lease table's partition count and how many of the outbox's version-1 columns exist. Part of
 * the dialect layer.
 */
public final class SchemaCheck {
  /** The outbox columns the query counts: {@code partition_no, sequence, next_attempt_at, traceparent}. */
  private static final int VERSION_1_COLUMNS = 4;

  private SchemaCheck() {}

  public static void verify(Connection c, String verifySql, int partitions) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(verifySql)) {
      rs.next();
      long leases = rs.getLong(1);
      if (rs.getLong(2) != VERSION_1_COLUMNS) {
        throw new SchemaNotMigratedException("twinbox_outbox lacks columns of schema version 1", null);
      }
      if (leases != partitions) {
        throw new SchemaNotMigratedException(
            "twinbox_relay_lease has " + leases + " partitions, expected " + partitions, null);
      }
    }
  }
}
