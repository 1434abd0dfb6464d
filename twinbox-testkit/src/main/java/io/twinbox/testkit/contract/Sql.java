package io.twinbox.testkit.contract;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Portable SQL helpers for the contract tests (plain statements every supported database runs). */
public final class Sql {
  private Sql() {}

  public static long count(DataSource ds, String sql, Object... args) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Each row's columns joined with {@code |}. */
  public static List<String> rows(DataSource ds, String sql, Object... args) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  public static void exec(DataSource ds, String sql, Object... args) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = prepare(c, sql, args)) {
      ps.execute();
    }
  }

  /** Empties every Twinbox table and frees all leases. */
  public static void reset(DataSource ds) throws SQLException {
    for (String table : List.of("twinbox_outbox", "twinbox_aggregate", "twinbox_relay_node", "twinbox_inbox",
        "twinbox_inbox_parked", "twinbox_inbox_parked_audit", "twinbox_inbox_attempt", "twinbox_supplied_id",
        "twinbox_inbox_sequence", "twinbox_inbox_held")) {
      exec(ds, "DELETE FROM " + table);
    }
    exec(ds, "UPDATE twinbox_relay_lease SET owner = NULL");
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < args.length; i++) {
      ps.setObject(i + 1, args[i]);
    }
    return ps;
  }
}
