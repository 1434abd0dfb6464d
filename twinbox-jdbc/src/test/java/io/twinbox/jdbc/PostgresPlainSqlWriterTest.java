package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Plain-SQL writers on PostgreSQL. */
class PostgresPlainSqlWriterTest extends PlainSqlWriterTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.postgres();
  }

  @Override
  String placeholder(String column) {
    return switch (column) {
      case "payload", "headers" -> "?::jsonb";
      case "id" -> "?::uuid";
      default -> "?";
    };
  }

  @Override
  AutoCloseable freshDatabase(DataSource[] dataSource) {
    PostgresDatabase db = PostgresDatabase.create();
    dataSource[0] = db.dataSource();
    return db;
  }

  @Override
  List<String> scriptsBeforeHardening() {
    return List.of("V1__twinbox.sql", "V2__inbox.sql", "V3__commit_notifications_opt_in.sql");
  }

  @Override
  void insertRowsBreakingTheRules(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload, headers) VALUES"
          + " ('Order', 'o-1', 'T', 1, '{}', 'null'), ('Order', 'o-2', 'T', 1, '{}', '[]'),"
          + " ('Order', 'o-3', 'T', 0, '{}', '{}'), ('Order', 'o-4', '', 1, '{}', '{\"ce_type\":\"x\"}')");
    }
  }

  @Override
  void ageSuppliedIds(Duration age, String except) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
        "UPDATE twinbox_supplied_id SET created_at = clock_timestamp() - ? * interval '1 millisecond'"
            + " WHERE id <> ?::uuid")) {
      ps.setLong(1, age.toMillis());
      ps.setString(2, except);
      ps.executeUpdate();
    }
  }

  /**
   * The Java writer already applies every rule and records its supplied ids itself: its inserts
   * must never run the plain-SQL trigger function (the trigger's WHEN clause keeps it out).
   */
  @Test
  void theJavaWriterNeverCallsThePlainSqlTriggerFunction() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("SET LOCAL track_functions = 'pl'");
      }
      outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "o-1").header("x-a", "b").payload("{}").build());
      outbox.write(c, OutboxEvent.builder("T", 1).id(UUID.randomUUID()).unordered("Audit").payload("{}").build());
      assertThat(triggerCalls(c)).as("calls by the Java writer").isZero();
      try (Statement st = c.createStatement()) {
        st.execute("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload)"
            + " VALUES ('Order', 'o-1', 'T', 1, '{}')");
      }
      assertThat(triggerCalls(c)).as("calls by a plain-SQL insert").isEqualTo(1);
      c.rollback();
    }
  }

  private static long triggerCalls(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
        "SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions WHERE funcname LIKE 'twinbox%'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
