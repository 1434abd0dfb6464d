package io.twinbox.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Plain SQL for assertions on the outbox and lease tables. Stateless. */
final class Db {
  private Db() {}

  static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  static long count(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Every row as a column-name → value map. */
  static List<Map<String, Object>> rows(DataSource ds, String sql) {
    List<Map<String, Object>> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.put(md.getColumnLabel(i), rs.getObject(i));
        }
        out.add(row);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
    return out;
  }

  /** Rows of the outbox still present (PENDING or FAILED; published rows are deleted). */
  static long outboxRows(DataSource ds) {
    return count(ds, "SELECT count(*) FROM twinbox_outbox");
  }
}
