package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.twinbox.DuplicateMessageIdException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.spi.StoreRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the schema does for writers that insert outbox rows with plain SQL (services in other
 * languages, next to the sidecar relay): rows the relay could not publish as the Java writer's
 * rules demand are refused at INSERT with a constraint error naming the column; caller-chosen ids
 * go through the same ledger as the Java writer's; generated ids are UUIDv7. One subclass per
 * database supplies the fixture and how a column is bound.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PlainSqlWriterTests {
  JdbcFixture fixture;
  DataSource ds;

  abstract JdbcFixture createFixture();

  /** The placeholder for a column, with the cast the database needs (e.g. {@code ?::jsonb}). */
  abstract String placeholder(String column);

  /** A fresh, empty database and its data source, for migrations. */
  abstract AutoCloseable freshDatabase(DataSource[] dataSource);

  /** The schema scripts before the hardening one, in order. */
  abstract List<String> scriptsBeforeHardening();

  /** Inserts rows that break today's rules into a database migrated before the hardening script. */
  abstract void insertRowsBreakingTheRules(Connection c) throws SQLException;

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset() throws Exception {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      for (String table : List.of("twinbox_outbox", "twinbox_aggregate", "twinbox_supplied_id")) {
        st.execute("DELETE FROM " + table);
      }
    }
  }

  /** The columns a plain-SQL writer sets; the others keep their defaults. */
  static Map<String, Object> row(String aggregateId) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("aggregate_type", "Order");
    r.put("aggregate_id", aggregateId);
    r.put("type", "OrderPlaced");
    r.put("version", 1);
    r.put("payload", "{\"n\":1}");
    return r;
  }

  static Map<String, Object> with(Map<String, Object> row, String column, Object value) {
    Map<String, Object> r = new LinkedHashMap<>(row);
    r.put(column, value);
    return r;
  }

  /** One INSERT in its own transaction, as a plain-SQL writer does; returns the row's id. */
  String insert(Map<String, Object> row) throws SQLException {
    List<String> marks = new ArrayList<>();
    row.keySet().forEach(c -> marks.add(placeholder(c)));
    String sql = "INSERT INTO twinbox_outbox (" + String.join(", ", row.keySet()) + ") VALUES ("
        + String.join(", ", marks) + ") RETURNING id";
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (Object v : row.values()) {
        ps.setObject(i++, v);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /** The INSERT must fail as a constraint or data error of the schema (SQLSTATE class 23 or 22). */
  SQLException refused(Map<String, Object> row) {
    Throwable t = catchThrowable(() -> insert(row));
    assertThat(t).as("refused: %s", row).isInstanceOf(SQLException.class);
    SQLException e = (SQLException) t;
    assertThat(e.getSQLState()).as("SQLSTATE of %s: %s", row, e.getMessage()).matches("2[23].*");
    return e;
  }

  /** Refused by a constraint (class 23) whose message names the column. */
  void refusedNaming(Map<String, Object> row, String column) {
    SQLException e = refused(row);
    assertThat(e.getSQLState()).as("constraint error for %s: %s", row, e.getMessage()).startsWith("23");
    assertThat(e.getMessage()).as("names %s", column).contains(column);
  }

  long count(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  final void headersThatAreNotAnObjectOfStringsAreRefused() throws Exception {
    List<String> bad = new ArrayList<>(List.of("null", "[]", "5", "\"x\"", "true", "{\"a\":{\"b\":1}}",
        "{\"a\":1}", "{\"a\":null}", "{\"a\":[\"x\"]}", "{\"a b\":\"x\"}", "{\"\":\"x\"}", "{\"é\":\"x\"}",
        "{\"x\":\"line\\nbreak\"}", "{\"x\":\"del\\u007f\"}", "{\"x\":\"" + "v".repeat(4097) + "\"}",
        "{\"" + "n".repeat(129) + "\":\"v\"}", "{\"ce_type\":\"forged\"}", "{\"CE_SOURCE\":\"forged\"}"));
    StringBuilder many = new StringBuilder("{");
    for (int i = 0; i < 65; i++) {
      many.append(i == 0 ? "" : ",").append("\"h").append(i).append("\":\"v\"");
    }
    bad.add(many.append('}').toString());
    for (String headers : bad) {
      refusedNaming(with(row("o-1"), "headers", headers), "headers");
    }
    for (String invalid : List.of("{", "not json", "")) {
      refused(with(row("o-1"), "headers", invalid));
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
    insert(with(row("o-1"), "headers", "{\"x-tenant\":\"acme\",\"h64\":\"" + "v".repeat(4096) + "\"}"));
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
  }

  /** One definition of the reserved names: every prefix of the Java writer's rules, in SQL too. */
  @Test
  final void everyReservedHeaderPrefixOfTheWriteRulesIsRefused() throws Exception {
    assertThat(StoreRules.reservedHeaderPrefixes()).contains("ce_", "traceparent");
    for (String prefix : StoreRules.reservedHeaderPrefixes()) {
      refusedNaming(with(row("o-1"), "headers", "{\"" + prefix + "x\":\"v\"}"), "headers");
    }
  }

  @Test
  final void idsThatAreNotUuidsAreRefused() throws Exception {
    for (String id : List.of("order-17", "1-1-1-1-1", "00000000-0000-0000-0000-00000000000g",
        "0000000000000000000000000000000000000", " ")) {
      refused(with(row("o-1"), "id", id));
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
  }

  @Test
  final void payloadsThatAreNotOneJsonValueAreRefused() throws Exception {
    for (String payload : List.of("not json", "{", "", "{\"a\":1} x")) {
      refused(with(row("o-1"), "payload", payload));
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
  }

  @Test
  final void namesVersionsAndTraceContextBreakingTheWriteRulesAreRefused() throws Exception {
    refusedNaming(with(row("o-1"), "type", ""), "type");
    refusedNaming(with(row("o-1"), "type", "  "), "type");
    refusedNaming(with(row("o-1"), "type", "Order\u0001Placed"), "type");
    refusedNaming(with(row("o-1"), "aggregate_type", ""), "aggregate_type");
    refusedNaming(with(row("o-1"), "aggregate_type", "Or\nder"), "aggregate_type");
    refusedNaming(with(row("o\u001b[2J"), "aggregate_id", "o\u001b[2J"), "aggregate_id");
    refusedNaming(with(row("o-1"), "version", 0), "version");
    refusedNaming(with(row("o-1"), "version", -3), "version");
    refusedNaming(with(row("o-1"), "traceparent", "garbage"), "traceparent");
    refusedNaming(with(row("o-1"), "correlation_id", "a\tb"), "correlation_id");
    refusedNaming(with(row("o-1"), "causation_id", "a\rb"), "causation_id");
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
    insert(with(with(row("o-1"), "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        "correlation_id", "req-1"));
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
  }

  /**
   * A caller-chosen id goes to the supplied-id ledger whoever writes it: reused later, by plain SQL
   * or by the Java writer, even after its row was published and deleted, it is refused.
   */
  @Test
  final void aSuppliedIdIsRefusedOnceUsedWhicheverWriterUsesIt() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    String x = UUID.randomUUID().toString();
    assertThat(insert(with(row("o-1"), "id", x))).isEqualTo(x);
    refused(with(row("o-2"), "id", x));
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox"); // the relay published and deleted it; the ledger remembers
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
    refused(with(row("o-3"), "id", x));
    refused(with(row("o-3"), "id", x.toUpperCase(java.util.Locale.ROOT)));

    UUID y = UUID.randomUUID();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder("T", 1).id(y).aggregate("Order", "o-4").payload("{}").build());
      c.commit();
    }
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox");
    }
    refused(with(row("o-5"), "id", y.toString()));

    String z = UUID.randomUUID().toString();
    insert(with(row("o-6"), "id", z));
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox");
    }
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> outbox.write(c,
          OutboxEvent.builder("T", 1).id(UUID.fromString(z)).aggregate("Order", "o-7").payload("{}").build()))
          .isInstanceOf(DuplicateMessageIdException.class).hasMessageContaining(z);
      c.rollback();
    }
    assertThat(count("SELECT count(*) FROM twinbox_supplied_id")).isEqualTo(3);
    insert(row("o-8")); // a generated id is not a supplied one
    assertThat(count("SELECT count(*) FROM twinbox_supplied_id")).isEqualTo(3);
  }

  @Test
  final void generatedIdsAreUuidV7AndSequencesStayGapFree() throws Exception {
    Instant before = Instant.now().minusSeconds(60);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(UUID.fromString(insert(row("o-v7"))));
    }
    Instant after = Instant.now().plusSeconds(60);
    for (UUID id : ids) {
      assertThat(id.version()).as("version of %s", id).isEqualTo(7);
      assertThat(id.variant()).isEqualTo(2);
      Instant at = Instant.ofEpochMilli(id.getMostSignificantBits() >>> 16);
      assertThat(at).isBetween(before, after);
    }
    assertThat(count("SELECT count(DISTINCT sequence) FROM twinbox_outbox WHERE aggregate_id = 'o-v7'"
        + " AND sequence BETWEEN 1 AND 3")).isEqualTo(3);
  }

  /**
   * Rows stored before the hardening script broke rules it checks; applying it must not fail on
   * them (they stay, and the relay fails them with their reason), while new such rows are refused.
   */
  @Test
  final void theHardeningMigrationKeepsExistingBadRowsAndRefusesNewOnes() throws Exception {
    DataSource[] fresh = new DataSource[1];
    try (AutoCloseable db = freshDatabase(fresh)) {
      JdbcStore store = JdbcStore.builder(fresh[0]).build();
      try (Connection c = fresh[0].getConnection()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          st.execute("CREATE TABLE twinbox_schema_version (script varchar(255) PRIMARY KEY,"
              + " applied_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)");
        }
        for (String script : scriptsBeforeHardening()) {
          String text = new String(getClass().getClassLoader()
              .getResourceAsStream("db/" + store.dialect().name() + "/" + script).readAllBytes(),
              java.nio.charset.StandardCharsets.UTF_8);
          for (String statement : store.dialect().statements(text)) {
            try (Statement st = c.createStatement()) {
              st.execute(statement);
            }
          }
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_schema_version (script) VALUES (?)")) {
            ps.setString(1, script);
            ps.executeUpdate();
          }
        }
        insertRowsBreakingTheRules(c);
        c.commit();
      }
      long bad = countOn(fresh[0], "SELECT count(*) FROM twinbox_outbox");
      assertThat(bad).isPositive();
      store.migrate();
      store.verifySchema();
      assertThat(countOn(fresh[0], "SELECT count(*) FROM twinbox_outbox")).isEqualTo(bad);
      DataSource mine = ds;
      ds = fresh[0];
      try {
        refusedNaming(with(row("o-new"), "headers", "null"), "headers");
      } finally {
        ds = mine;
      }
    }
  }

  static long countOn(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Only the ledger's rows older than its retention go; the rest keep refusing reuse. */
  @Test
  final void retentionPurgesSuppliedIdsOlderThanTheirRetentionOnly() throws Exception {
    for (int i = 0; i < 7; i++) {
      insert(with(row("o-r"), "id", UUID.randomUUID().toString()));
    }
    String recent = UUID.randomUUID().toString();
    insert(with(row("o-r"), "id", recent));
    ageSuppliedIds(Duration.ofDays(91), recent);
    io.twinbox.Retention retention = io.twinbox.Retention.builder()
        .outbox(fixture.jdbcStore(), Duration.ofDays(30)).batchSize(3).build();
    io.twinbox.Retention.Result result = retention.runOnce();
    assertThat(result.suppliedIds()).isEqualTo(7);
    assertThat(count("SELECT count(*) FROM twinbox_supplied_id")).isEqualTo(1);
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox");
    }
    refused(with(row("o-r"), "id", recent));
    assertThat(io.twinbox.Retention.builder().outbox(fixture.jdbcStore(), Duration.ofDays(30))
        .suppliedIdRetention(Duration.ofDays(400)).build().runOnce().suppliedIds()).isZero();
  }

  /** Moves every ledger row but {@code except} {@code age} into the past. */
  abstract void ageSuppliedIds(Duration age, String except) throws SQLException;
}
