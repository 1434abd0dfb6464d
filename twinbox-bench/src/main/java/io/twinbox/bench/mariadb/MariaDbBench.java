package io.twinbox.bench.mariadb;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.brokers.RelayDrain;
import io.twinbox.bench.write.WritePath;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.MariaDbDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Issue 5, MariaDB: the write paths (business insert alone, + the dialect's outbox statements in
 * raw SQL, + {@code Outbox.write}) and the relay (Twinbox draining N events to Kafka vs a raw-SQL
 * claim + delete loop without a broker), on one fresh MariaDB database.
 */
public final class MariaDbBench {
  private MariaDbBench() {}

  public static final String ORDERS_DDL = """
      CREATE TABLE IF NOT EXISTS orders (
        id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(64) NOT NULL,
        amount DECIMAL(12,2) NOT NULL, created_at DATETIME(6) NOT NULL) ENGINE = InnoDB""";

  /** What empties the tables before each write slice. */
  public static final List<String> RESET = List.of(ORDERS_DDL, "TRUNCATE TABLE orders", "TRUNCATE TABLE twinbox_outbox",
      "ANALYZE TABLE twinbox_aggregate");

  /** Copied from {@code MariaDbDialect.NEXT_SEQUENCE} and {@code INSERT_EVENT} (twinbox-jdbc). */
  static final String NEXT_SEQUENCE = """
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, LAST_INSERT_ID(1))
      ON DUPLICATE KEY UPDATE last_sequence = LAST_INSERT_ID(last_sequence + 1)""";

  static final String INSERT_EVENT = """
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      VALUES (?, ?, ?, LAST_INSERT_ID(), ?, ?, ?, ?, ?, ?, ?, ?)""";

  /** Business insert + the dialect's two statements (counter upsert, outbox insert) in plain JDBC. */
  public static WritePath rawSql() {
    return new WritePath() {
      @Override
      public String name() {
        return "raw-sql";
      }

      @Override
      public String description() {
        return "INSERT orders + counter upsert + outbox insert (= MariaDbDialect NEXT_SEQUENCE, INSERT_EVENT)";
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        Instant now = Instant.now();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)")) {
          ps.setString(1, o.customer());
          ps.setBigDecimal(2, java.math.BigDecimal.valueOf(o.cents(), 2));
          ps.setTimestamp(3, Timestamp.from(now));
          ps.executeUpdate();
        }
        try (PreparedStatement next = c.prepareStatement(NEXT_SEQUENCE)) {
          next.setString(1, "Order");
          next.setString(2, o.aggregateId());
          next.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
          int i = 1;
          ps.setString(i++, Payloads.uuidV7().toString());
          ps.setString(i++, "Order");
          ps.setString(i++, o.aggregateId());
          ps.setString(i++, "OrderCreated");
          ps.setInt(i++, 1);
          ps.setString(i++, o.payload());
          ps.setString(i++, "{}");
          ps.setString(i++, null);
          ps.setString(i++, null);
          ps.setString(i++, null);
          ps.setObject(i, LocalDateTime.ofInstant(now, ZoneOffset.UTC));
          ps.executeUpdate();
        }
      }
    };
  }

  /** Fills the outbox with {@code events} pending events over {@code aggregates} aggregates (setup). */
  public static void fill(HikariDataSource admin, int events, int aggregates) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE TABLE twinbox_outbox");
      st.execute("DELETE FROM twinbox_aggregate");
      st.execute("""
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                      occurred_at)
          SELECT UUID(), 'Order', n.agg, n.rn, 'OrderCreated', 1,
                 CONCAT('{"orderId":', n.g, ',"customer":"customer-', n.g %% 10000, '","amount":"', 10 + n.g %% 990,
                        '.', LPAD(n.g %% 100, 2, '0'), '","currency":"EUR","items":[{"sku":"SKU-', LPAD(n.g %% 100000, 5, '0'),
                        '","qty":', 1 + n.g %% 5, '},{"sku":"SKU-', LPAD(n.g * 7 %% 100000, 5, '0'),
                        '","qty":1}],"shipping":{"country":"DE","zip":"', LPAD(n.g %% 100000, 5, '0'), '"},"channel":"web"}'),
                 '{}', UTC_TIMESTAMP(6)
            FROM (SELECT e.g, e.agg, ROW_NUMBER() OVER (PARTITION BY e.agg ORDER BY e.g) AS rn
                    FROM (SELECT seq AS g, CONCAT('order-', FLOOR(RAND() * %d)) AS agg FROM seq_1_to_%d) e) n
           ORDER BY n.g""".formatted(aggregates, events));
      st.execute("""
          INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
          SELECT aggregate_type, aggregate_id, MAX(sequence) FROM twinbox_outbox GROUP BY aggregate_type, aggregate_id""");
      st.execute("ANALYZE TABLE twinbox_outbox");
      st.execute("ANALYZE TABLE twinbox_aggregate");
    }
  }

  public static long count(HikariDataSource admin) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM twinbox_outbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static final String CLAIM = """
      SELECT position, id, aggregate_type, aggregate_id, sequence, partition_no, type, version, payload, headers,
             occurred_at
        FROM twinbox_outbox
       WHERE status = 'PENDING'
       ORDER BY position
       LIMIT ?
         FOR UPDATE SKIP LOCKED""";

  /** One drain: {@code twinbox} (relay to Kafka) or {@code raw-sql-limit} (claim + delete, no broker). */
  public static Result relay(String variant, MariaDbDatabase db, HikariDataSource admin, KafkaBroker broker,
      String topic, int events, int aggregates, int workers, int batch, Duration timeout) throws Exception {
    fill(admin, events, aggregates);
    long pending = count(admin);
    if (topic != null) {
      io.twinbox.bench.Topics.createWarm(broker, topic, 8);
    }
    Set<Long> pids = Set.of(broker.pid());
    double others = io.twinbox.bench.Quiet.await(pids);
    double load = Machine.load1();
    CpuMeter cpu = CpuMeter.start(pids);
    Map<String, Object> m;
    if (variant.equals("twinbox")) {
      try (HikariDataSource pool = Pools.create(db.jdbcUrl(), user(), password(), "bench-maria-relay", workers + 3,
          true, null)) {
        m = RelayDrain.drain(JdbcStore.builder(pool).build(),
            KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(TopicRouter.fixed(topic)).build(),
            workers, batch, pending, timeout);
      }
    } else {
      m = rawLoop(db, batch, timeout);
    }
    Map<String, Double> cpuUse = cpu.stop();
    long left = count(admin);
    Result r = new Result("mariadb-relay", variant, load).loadAfter(Machine.load1())
        .param("others_cpu_before", others).param("events", pending).param("aggregates", aggregates)
        .param("batch", batch).param(variant.equals("twinbox") ? "workers" : "claimers", workers)
        .param("description", variant.equals("twinbox")
            ? "Relay.builder(JdbcStore on MariaDB, KafkaPublisher defaults).workers(" + workers + ").batchSize(" + batch + ")"
            : "plain JDBC, 1 thread: SELECT ... ORDER BY position LIMIT " + batch
                + " FOR UPDATE SKIP LOCKED, DELETE WHERE position IN (...), commit; no broker");
    m.forEach(r::metric);
    r.metric("left_in_outbox", left);
    r.metrics(cpuUse);
    System.out.printf("  mariadb relay %-14s %,8.0f events/s (%s s, %d left)%n", variant, r.number("events_per_s"),
        m.get("seconds"), left);
    return r;
  }

  private static Map<String, Object> rawLoop(MariaDbDatabase db, int batch, Duration timeout) throws SQLException {
    long rows = 0;
    long batches = 0;
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    try (HikariDataSource pool = Pools.create(db.jdbcUrl(), user(), password(), "bench-maria-raw", 1, false, null);
        Connection c = pool.getConnection()) {
      while (System.nanoTime() < deadline) {
        List<Long> positions = new ArrayList<>(batch);
        try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
          ps.setInt(1, batch);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              positions.add(rs.getLong(1));
              // read every column, as a relay would
              for (int i = 2; i <= 11; i++) {
                rs.getString(i);
              }
            }
          }
        }
        if (positions.isEmpty()) {
          c.commit();
          break;
        }
        StringBuilder in = new StringBuilder();
        for (Long p : positions) {
          in.append(in.length() == 0 ? "" : ",").append(p);
        }
        try (Statement st = c.createStatement()) {
          st.executeUpdate("DELETE FROM twinbox_outbox WHERE position IN (" + in + ")");
        }
        c.commit();
        rows += positions.size();
        batches++;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("events_per_s", rows / seconds);
    m.put("seconds", Math.round(seconds * 1000) / 1000.0);
    m.put("published", rows);
    m.put("batches", batches);
    return m;
  }

  public static String user() {
    String v = System.getenv("TWINBOX_MARIADB_USER");
    return v == null || v.isBlank() ? "root" : v;
  }

  public static String password() {
    String v = System.getenv("TWINBOX_MARIADB_PASSWORD");
    return v == null ? "" : v;
  }

  /** Relay rows: mean and per-round events/s, ratio to the raw-SQL loop. */
  public static List<List<String>> relayTable(List<Result> all) {
    Map<String, List<Result>> groups = new LinkedHashMap<>();
    for (Result r : all) {
      if (r.scenario().equals("mariadb-relay")) {
        groups.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
      }
    }
    double raw = groups.getOrDefault("raw-sql-limit", List.of()).stream().mapToDouble(r -> r.number("events_per_s"))
        .average().orElse(Double.NaN);
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("drainer", "events", "events/s (mean)", "per round", "vs raw-sql-limit", "complete", "cpu other",
        "load1"));
    for (Map.Entry<String, List<Result>> e : groups.entrySet()) {
      List<Result> rs = e.getValue();
      double eps = rs.stream().mapToDouble(r -> r.number("events_per_s")).average().orElse(Double.NaN);
      rows.add(List.of(e.getKey(), Report.num(((Number) rs.get(0).param("events")).doubleValue()), Report.num(eps),
          String.join(" / ", rs.stream().map(r -> Report.num(r.number("events_per_s"))).toList()),
          Report.ratio(eps, raw),
          String.join(" / ", rs.stream().map(r -> String.valueOf(r.metrics().getOrDefault("complete",
              ((Number) r.metrics().getOrDefault("left_in_outbox", -1)).longValue() == 0))).toList()),
          Report.ms(rs.stream().mapToDouble(r -> r.number("cpu_other")).average().orElse(Double.NaN)),
          String.join(" / ", rs.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList())));
    }
    return rows;
  }
}
