package io.twinbox.jdbc;

import io.twinbox.testkit.MariaDbDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/** Plain-SQL writers on MariaDB (no JSON type: the trigger checks what PostgreSQL's jsonb does). */
class MariaDbPlainSqlWriterTest extends PlainSqlWriterTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.mariadb();
  }

  @Override
  String placeholder(String column) {
    return "?";
  }

  @Override
  AutoCloseable freshDatabase(DataSource[] dataSource) {
    MariaDbDatabase db = MariaDbDatabase.create();
    dataSource[0] = db.dataSource();
    return db;
  }

  @Override
  List<String> scriptsBeforeHardening() {
    return List.of("V1__twinbox.sql", "V2__inbox.sql");
  }

  @Override
  void insertRowsBreakingTheRules(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, type, version, payload, headers) VALUES"
          + " ('order-17', 'Order', 'o-1', 'T', 1, '{}', '{}'), ('', 'Order', 'o-2', 'T', 1, 'not json', 'null'),"
          + " ('', 'Order', 'o-3', 'T', 0, '{}', '{\"ce_type\":\"x\"}')");
    }
  }

  @Override
  void ageSuppliedIds(Duration age, String except) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
        "UPDATE twinbox_supplied_id SET created_at = UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND WHERE id <> ?")) {
      ps.setLong(1, age.toNanos() / 1000);
      ps.setString(2, except);
      ps.executeUpdate();
    }
  }
}
