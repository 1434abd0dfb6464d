package io.twinbox.jdbc;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** Small helpers shared by the PostgreSQL tests. */
final class PgTestSupport {
  private PgTestSupport() {}

  static JdbcStore migratedStore(PostgresDatabase db) {
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    return store;
  }

  static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("OrderCreated", 1)
        .aggregate("Order", aggregateId)
        .payload("{\"order\":\"" + aggregateId + "\",\"n\":" + n + "}")
        .build();
  }

  /** Writes one event per call in its own committed transaction. */
  static UUID writeCommitted(DataSource ds, Outbox outbox, OutboxEvent e) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, e);
      c.commit();
      return id;
    }
  }

  static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static List<String> strings(DataSource ds, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
