package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.twinbox.spi.StoreRules;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.KafkaDeliveryReader;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, acceptance 3: a plain-SQL fuzz of the outbox through the sidecar. A writer in another
 * language inserts rows with plain SQL, one transaction each: good rows over several aggregates,
 * interleaved with bad ones (headers 'null', '[]', scalars, nested values, huge or reserved ones;
 * ids that are not UUIDs; wrong types; bad payloads; NULLs; oversized fields; reused supplied ids;
 * rows that set their own sequence and so skip the schema's checks). {@code java -jar twinbox.jar
 * relay} runs as a process of its own and publishes to a real Kafka broker.
 *
 * <p>Every bad row must be refused by the schema (the INSERT fails with SQLSTATE class 22 or 23)
 * or end FAILED with a reason; every good row must reach Kafka, in per-aggregate order; only the
 * bad rows' aggregates are held (a good row written after an accepted bad one in its aggregate
 * stays PENDING); {@code /health}, {@code /metrics}, {@code status} and {@code failed list} show the
 * FAILED rows. Seeded: {@code -Dtwinbox.fuzz.seed=N} replays a run (the seed is printed).
 */
class PlainSqlFuzzIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROWS = 300;

  @Test
  void plainSqlFuzzOnPostgres(@TempDir Path dir) throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      // stringtype=unspecified: parameters go untyped and the server converts them, as the drivers
      // of dynamic languages (psycopg, pgx with text) do; a wrong type is then the server's error.
      String url = db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "stringtype=unspecified";
      run(dir, new Target("postgresql", db.jdbcUrl(), db.user(), db.password(),
          () -> DriverManager.getConnection(url, db.user(), db.password())));
    }
  }

  @Test
  void plainSqlFuzzOnMariaDb(@TempDir Path dir) throws Exception {
    try (MariaDbDatabase db = MariaDbDatabase.create()) {
      String user = Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_USER"), "root");
      String password = Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_PASSWORD"), "");
      run(dir, new Target("mariadb", db.jdbcUrl(), user, password, () -> db.dataSource().getConnection()));
    }
  }

  interface ConnectionSource {
    Connection get() throws SQLException;
  }

  record Target(String name, String jdbcUrl, String user, String password, ConnectionSource connections) {
    boolean postgres() {
      return name.equals("postgresql");
    }
  }

  /** A row to insert: its columns, and whether the test treats it as good. */
  record Row(String kind, Map<String, Object> columns, boolean good) {}

  /** A row that went in: its position, id, aggregate and sequence as the database assigned them. */
  record Stored(Row row, long position, String id, String aggregateId, long sequence) {}

  private void run(Path dir, Target target) throws Exception {
    long seed = Long.getLong("twinbox.fuzz.seed", System.nanoTime());
    System.out.println("[PlainSqlFuzzIT " + target.name() + "] seed=" + seed + " (replay: -Dtwinbox.fuzz.seed=" + seed + ")");
    Random random = new Random(seed);
    KafkaBroker kafka = KafkaBroker.shared();
    // Not from the seed: a replayed run (or the other database's run) must not read an old topic.
    String aggregateType = "Fuzz" + UUID.randomUUID().toString().substring(0, 8);
    String topic = aggregateType.toLowerCase(Locale.ROOT);
    kafka.createTopic(topic, 4);
    Map<String, String> env = Map.of("TWINBOX_DB_URL", target.jdbcUrl(), "TWINBOX_DB_USER", target.user(),
        "TWINBOX_DB_PASSWORD", target.password(), "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    Cli.Result migrate = JarProcess.run(dir, env, "migrate");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    int port = JarProcess.freePort();
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n", "http.bind=127.0.0.1", "http.port=" + port, "relay.name=fuzz",
        "relay.poll.interval=100ms", "relay.lease.ttl=3s", "relay.max.attempts=3", ""));

    Fuzz fuzz = new Fuzz(random, aggregateType, target.postgres());
    List<Stored> good = new ArrayList<>();
    List<Stored> acceptedBad = new ArrayList<>();
    List<Stored> held = new ArrayList<>();
    Map<String, Integer> refusedByKind = new LinkedHashMap<>();
    Map<String, Integer> acceptedByKind = new LinkedHashMap<>();
    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString());
        Connection c = target.connections().get()) {
      c.setAutoCommit(true);
      for (int i = 0; i < ROWS; i++) {
        Row row = fuzz.next(i);
        Stored s;
        try {
          s = insert(c, row);
        } catch (SQLException e) {
          assertThat(row.good()).as("a good row was refused: %s (%s)", row.kind(), e.getMessage()).isFalse();
          assertThat(e.getSQLState()).as("%s refused with %s: %s", row.kind(), e.getSQLState(), e.getMessage())
              .matches("2[23].*");
          refusedByKind.merge(row.kind(), 1, Integer::sum);
          continue;
        }
        if (row.good()) {
          good.add(s);
          fuzz.used(s);
        } else {
          acceptedBad.add(s);
          acceptedByKind.merge(row.kind(), 1, Integer::sum);
          // A good row after it in its aggregate: it must wait behind the bad one.
          if (s.aggregateId() != null) {
            held.add(insert(c, fuzz.successor(s)));
          }
        }
      }
      System.out.println("[PlainSqlFuzzIT " + target.name() + "] good=" + good.size() + " refused=" + refusedByKind
          + " accepted-bad=" + acceptedByKind + " held successors=" + held.size());
      assertThat(acceptedBad).as("the fuzz reaches the relay's checks too").isNotEmpty();

      Set<UUID> ids = new HashSet<>();
      List<ExpectedEvent> expected = new ArrayList<>();
      for (Stored s : good) {
        UUID id = UUID.fromString(s.id());
        ids.add(id);
        expected.add(s.aggregateId() == null ? ExpectedEvent.unordered(id, aggregateType)
            : ExpectedEvent.ordered(id, aggregateType, s.aggregateId(), s.sequence()));
      }
      List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(kafka.bootstrapServers(), List.of(topic), ids,
          Duration.ofSeconds(60));
      CheckResult result = DeliveryChecker.check(expected, Set.of(), deliveries.stream()
          .filter(d -> ids.contains(d.id())).toList());
      assertThat(result.lost()).as(result.describe(10) + "\n" + relay.log()).isZero();
      assertThat(result.orderViolations()).as(result.describe(10)).isZero();
      assertThat(result.ok()).as(result.describe(10)).isTrue();

      // Each accepted bad row ends FAILED with a reason; nothing of theirs, nor of their held
      // successors, reaches the broker.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        for (Stored s : acceptedBad) {
          assertThat(statusOf(c, s.position())).as("%s at position %d", s.row().kind(), s.position())
              .startsWith("FAILED|").doesNotEndWith("|null");
        }
      });
      Set<String> published = new HashSet<>();
      deliveries.forEach(d -> published.add(d.id().toString()));
      for (Stored s : acceptedBad) {
        assertThat(published).as("bad row %s published", s.row().kind()).doesNotContain(s.id());
      }
      for (Stored s : held) {
        assertThat(statusOf(c, s.position())).as("successor of a bad row").isEqualTo("PENDING|0|null");
        assertThat(published).doesNotContain(s.id());
      }
      assertThat(deliveries).as("only good rows reach the broker").allSatisfy(d -> assertThat(ids).contains(d.id()));

      long failed = acceptedBad.size();
      long undecodable = count(c, "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'"
          + " AND last_error LIKE 'undecodable row:%'");
      long heldAggregates = acceptedBad.stream().filter(s -> s.aggregateId() != null)
          .map(s -> s.row().columns().get("aggregate_type") + "/" + s.aggregateId()).distinct().count();
      assertThat(count(c, "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'")).isEqualTo(failed);
      System.out.println("[PlainSqlFuzzIT " + target.name() + "] FAILED=" + failed + " (undecodable " + undecodable
          + ", rejected by the broker " + (failed - undecodable) + "), held aggregates=" + heldAggregates);

      // What operators see.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        String metrics = JarProcess.get("http://127.0.0.1:" + port + "/metrics", null).body();
        assertThat(metric(metrics, "twinbox_outbox_failed")).isEqualTo(failed);
        assertThat(metric(metrics, "twinbox_outbox_held_aggregates")).isEqualTo(heldAggregates);
        assertThat(metric(metrics, "twinbox_relay_undecodable_total{relay=\"fuzz\"}")).isEqualTo(undecodable);
        assertThat(metric(metrics, "twinbox_relay_publish_total{outcome=\"dead\",relay=\"fuzz\"}")).isEqualTo(failed);
        assertThat(metric(metrics, "twinbox_relay_publish_total{outcome=\"published\",relay=\"fuzz\"}"))
            .isEqualTo(good.size());
      });
      HttpResponse<String> health = JarProcess.get("http://127.0.0.1:" + port + "/health", null);
      JsonNode h = JSON.readTree(health.body());
      assertThat(h.get("outbox").get("failed").asLong()).as(health.body()).isEqualTo(failed);
      assertThat(h.get("outbox").get("heldAggregates").asLong()).isEqualTo(heldAggregates);
      assertThat(h.get("outbox").get("pending").asLong()).isEqualTo(held.size());
      Cli.Result status = JarProcess.run(dir, env, "status", "--json");
      assertThat(status.json().get("failed").asLong()).as(status.toString()).isEqualTo(failed);
      Cli.Result list = JarProcess.run(dir, env, "failed", "list", "--json", "--limit", "1000");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.json()).hasSize((int) failed)
          .allSatisfy(e -> assertThat(e.get("lastError").asText()).isNotBlank());
      assertThat(relay.isAlive()).as(relay.log()).isTrue();
      assertThat(relay.terminate()).as(relay.log()).isZero();
    }
  }

  private static Stored insert(Connection c, Row row) throws SQLException {
    String sql = "INSERT INTO twinbox_outbox (" + String.join(", ", row.columns().keySet()) + ") VALUES ("
        + String.join(", ", row.columns().keySet().stream().map(k -> "?").toList())
        + ") RETURNING position, id, aggregate_id, sequence";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (Object v : row.columns().values()) {
        ps.setObject(i++, v);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Stored(row, rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4));
      }
    }
  }

  private static String statusOf(Connection c, long position) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT status, attempts, last_error FROM twinbox_outbox WHERE position = ?")) {
      ps.setLong(1, position);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) + "|" + rs.getInt(2) + "|" + rs.getString(3) : "(deleted)";
      }
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The value of one Prometheus sample, e.g. {@code twinbox_outbox_failed} or with its labels. */
  private static long metric(String text, String sample) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " ([0-9.eE+-]+)$").matcher(text);
    assertThat(m.find()).as("sample %s in\n%s", sample, text).isTrue();
    return Math.round(Double.parseDouble(m.group(1)));
  }

  /** The row generator: good rows over a few aggregates, and bad rows of every kind. */
  static final class Fuzz {
    private final Random random;
    private final String aggregateType;
    private final boolean postgres;
    private final List<String> usedSuppliedIds = new ArrayList<>();
    private final List<Function<Integer, Row>> bad = new ArrayList<>();

    Fuzz(Random random, String aggregateType, boolean postgres) {
      this.random = random;
      this.aggregateType = aggregateType;
      this.postgres = postgres;
      String big = "v".repeat(100_000);
      headers("headers null", "null");
      headers("headers array", "[]", "[\"x\"]");
      headers("headers scalar", "5", "\"x\"", "true", "1.5");
      headers("headers nested", "{\"a\":{\"b\":1}}", "{\"a\":[\"x\"]}", "{\"a\":1}", "{\"a\":null}", "{\"a\":false}");
      headers("headers huge", "{\"x\":\"" + big + "\"}", many(65), "{\"" + "n".repeat(200) + "\":\"v\"}");
      headers("headers invalid", "{", "not json", "", "{\"a\":\"x\"} {}");
      headers("headers control", "{\"x\":\"a\\u0007b\"}", "{\"x\":\"line\\nbreak\"}", "{\"a b\":\"x\"}",
          "{\"\":\"x\"}", "{\"é\":\"x\"}");
      List<String> reserved = StoreRules.reservedHeaderPrefixes();
      bad.add(i -> badRow("headers reserved", i, "headers",
          "{\"" + reserved.get(random.nextInt(reserved.size())) + "x\":\"forged\"}"));
      column("id not a UUID", "id", "order-17", "not-a-uuid", "1-1-1-1-1", "g0000000-0000-0000-0000-000000000000",
          "0000000000000000000000000000000000000000");
      column("type bad", "type", "", "   ", "Order\u0001Placed", null, "T".repeat(300));
      column("aggregate_type bad", "aggregate_type", "", " ", "Or\nder", null, "A".repeat(300));
      column("aggregate_id bad", "aggregate_id", "o\u001b[2J", "x".repeat(300));
      column("version bad", "version", 0, -1, "abc", null, "99999999999");
      column("payload bad", "payload", "not json", "{", "", null, "{\"a\":1} x", "{\"a\":\"\\u0000\"}",
          "1e999999", "[1e-16384]", "\"\\ud800\"");
      column("traceparent bad", "traceparent", "garbage", "00-" + "0".repeat(57),
          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01");
      column("correlation_id bad", "correlation_id", "c".repeat(300), "a\tb");
      column("causation_id bad", "causation_id", "k".repeat(300), "a\rb");
      column("occurred_at bad", "occurred_at", "notadate", "2026-13-45 25:00:00");
      column("headers NULL", "headers", (Object) null);
      bad.add(i -> badRow("payload too large for the broker", i, "payload",
          "{\"x\":\"" + "p".repeat(1_500_000) + "\"}"));
      bad.add(i -> usedSuppliedIds.isEmpty() ? badRow("headers null", i, "headers", "null")
          : badRow("supplied id reused", i, "id", usedSuppliedIds.get(random.nextInt(usedSuppliedIds.size()))));
      // Rows that set their own sequence (and, on PostgreSQL, id): the schema's plain-SQL checks do
      // not run for them (that is the Java writer's path); the relay's checks must fail them.
      bad.add(i -> ownSequence("own sequence, headers null", i, "headers", "null"));
      bad.add(i -> ownSequence("own sequence, reserved header", i, "headers", "{\"ce_type\":\"forged\"}"));
      bad.add(i -> ownSequence("own sequence, nested header", i, "headers", "{\"a\":{\"b\":1}}"));
      bad.add(i -> ownSequence("own sequence, blank type", i, "type", " "));
      bad.add(i -> ownSequence("own sequence, bad traceparent", i, "traceparent", "garbage"));
      if (!postgres) {
        bad.add(i -> ownSequence("own sequence, id not a UUID", i, "id", "order-" + i));
        bad.add(i -> ownSequence("own sequence, payload not JSON", i, "payload", "not json"));
        bad.add(i -> ownSequence("own sequence, payload with NUL", i, "payload", "{\"a\":\"\\u0000\"}"));
      }
    }

    private static String many(int n) {
      StringBuilder b = new StringBuilder("{");
      for (int i = 0; i < n; i++) {
        b.append(i == 0 ? "" : ",").append("\"h").append(i).append("\":\"v\"");
      }
      return b.append('}').toString();
    }

    private void headers(String kind, String... values) {
      column(kind, "headers", (Object[]) values);
    }

    private void column(String kind, String column, Object... values) {
      bad.add(i -> badRow(kind, i, column, values[random.nextInt(values.length)]));
    }

    /** Bad rows get aggregates of their own, so that which ones the relay holds is known. */
    private Row badRow(String kind, int i, String column, Object value) {
      Map<String, Object> r = base("bad-" + i);
      r.put(column, value);
      return new Row(kind, r, false);
    }

    private Row ownSequence(String kind, int i, String column, Object value) {
      Map<String, Object> r = base("bad-" + i);
      r.put("id", UUID.randomUUID().toString());
      r.put("sequence", 1L);
      r.put(column, value);
      return new Row(kind, r, false);
    }

    private Map<String, Object> base(String aggregateId) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("aggregate_type", aggregateType);
      r.put("aggregate_id", aggregateId);
      r.put("type", "FuzzHappened");
      r.put("version", 1);
      r.put("payload", "{\"n\":" + random.nextInt(1000) + "}");
      return r;
    }

    /** Every kind of bad row once, in random order, before bad rows are drawn at random. */
    private List<Integer> firstRound;

    Row next(int i) {
      if (firstRound == null) {
        firstRound = new ArrayList<>();
        for (int k = 0; k < bad.size(); k++) {
          firstRound.add(k);
        }
        java.util.Collections.shuffle(firstRound, random);
      }
      if (random.nextInt(10) < 3) {
        int kind = firstRound.isEmpty() ? random.nextInt(bad.size()) : firstRound.remove(firstRound.size() - 1);
        return bad.get(kind).apply(i);
      }
      Map<String, Object> r = base(random.nextInt(10) == 0 ? null : "g-" + random.nextInt(8));
      if (random.nextInt(5) == 0) {
        r.put("id", UUID.randomUUID().toString());
      }
      if (random.nextBoolean()) {
        StringBuilder h = new StringBuilder("{");
        int n = 1 + random.nextInt(3);
        for (int k = 0; k < n; k++) {
          h.append(k == 0 ? "" : ",").append("\"x-h").append(k).append("\":\"v").append(random.nextInt(100)).append('"');
        }
        r.put("headers", h.append('}').toString());
      }
      if (random.nextInt(4) == 0) {
        r.put("correlation_id", "req-" + random.nextInt(1_000_000));
        r.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
      }
      r.put("payload", "{\"n\":" + i + ",\"s\":\"ü\\n\\u00e9\"}");
      return new Row("good", r, true);
    }

    void used(Stored s) {
      if (s.row().columns().containsKey("id")) {
        usedSuppliedIds.add(s.id());
      }
    }

    /** A good row of the same aggregate, after the bad one. */
    Row successor(Stored bad) {
      Map<String, Object> r = base(bad.aggregateId());
      r.put("aggregate_type", bad.row().columns().get("aggregate_type"));
      if (bad.row().columns().containsKey("sequence")) { // the bad row numbered itself: so must this one
        r.put("id", UUID.randomUUID().toString());
        r.put("sequence", 2L);
      }
      return new Row("successor", r, true);
    }
  }
}
