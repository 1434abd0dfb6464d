package io.twinbox.bench.growth;

import io.twinbox.jdbc.JdbcStore;
import io.twinbox.jdbc.PostgresDialect;
import io.twinbox.spi.PartitionLease;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The relay's claim on the table as it stands, before the drain: {@code EXPLAIN (ANALYZE, BUFFERS)}
 * of the claim statement exactly as {@link PostgresDialect} runs it (its {@code CLAIM} text, or {@code CLAIM_PARTITIONED} on a partitioned outbox, and
 * {@code SET LOCAL} settings are read from the class, so they cannot drift from the library), then
 * {@code probes} timed claims through {@link JdbcStore#claim}. A claim does not change rows, so
 * every probe claims the same oldest batch. The first execution after bulk deletes pays for
 * walking (and marking) the dead index entries: that is the EXPLAIN's figure.
 */
final class ClaimPlan {
  private ClaimPlan() {}

  private static final String NODE = "growth-explain";
  private static final Pattern EXECUTION = Pattern.compile("Execution Time: ([0-9.]+) ms");
  private static final Pattern BUFFERS = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

  static Map<String, Object> measure(DataSource admin, int batch, int probes) throws Exception {
    JdbcStore store = JdbcStore.builder(admin).build();
    List<PartitionLease> leases = store.acquire(NODE, store.partitionCount(), Duration.ofMinutes(5));
    Map<String, Object> m = new LinkedHashMap<>();
    try {
      String plan = explain(admin, store.outboxPartitioned() ? "CLAIM_PARTITIONED" : "CLAIM", leases, batch);
      Matcher t = EXECUTION.matcher(plan);
      m.put("explain_ms", t.find() ? Double.parseDouble(t.group(1)) : Double.NaN);
      Matcher b = BUFFERS.matcher(plan);
      if (b.find()) {
        m.put("explain_buffers_hit", b.group(1) == null ? 0 : Long.parseLong(b.group(1)));
        m.put("explain_buffers_read", b.group(2) == null ? 0 : Long.parseLong(b.group(2)));
      }
      m.put("claim_plan", plan);
      long[] ns = new long[probes];
      int rows = 0;
      for (int i = 0; i < probes; i++) {
        long t0 = System.nanoTime();
        rows = store.claim(NODE, leases, batch).size();
        ns[i] = System.nanoTime() - t0;
      }
      Arrays.sort(ns);
      m.put("probe_rows", rows);
      m.put("probe_p50_ms", io.twinbox.bench.LatencyStats.q(ns, 0.50));
      m.put("probe_p99_ms", io.twinbox.bench.LatencyStats.q(ns, 0.99));
    } finally {
      store.release(NODE, leases);
      store.leave(NODE);
    }
    return m;
  }

  private static String explain(DataSource admin, String statement, List<PartitionLease> leases, int batch)
      throws Exception {
    String claim = (String) constant(statement);
    String settings = (String) constant("CLAIM_SETTINGS");
    try (Connection c = admin.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (Statement st = c.createStatement()) {
          st.execute(settings);
        }
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + claim)) {
          ps.setArray(1, c.createArrayOf("int4", leases.stream().map(PartitionLease::partition).toArray()));
          ps.setString(2, NODE);
          ps.setInt(3, batch);
          List<String> lines = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              lines.add(rs.getString(1));
            }
          }
          return String.join("\n", lines);
        }
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  /** A private SQL constant of {@link PostgresDialect}: the statement the relay really runs. */
  static Object constant(String name) throws ReflectiveOperationException {
    Field f = PostgresDialect.class.getDeclaredField(name);
    f.setAccessible(true);
    return f.get(null);
  }

  /** EXPLAIN (ANALYZE, BUFFERS) of the retention's purge statement, rolled back. */
  static String explainPurge(DataSource admin, Duration age, int limit) throws Exception {
    Object adminSql = PostgresDialect.INSTANCE.admin();
    Field f = adminSql.getClass().getDeclaredField("purgeSql");
    f.setAccessible(true);
    String purge = (String) f.get(adminSql);
    try (Connection c = admin.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + purge)) {
        ps.setLong(1, age.toMillis());
        ps.setInt(2, limit);
        List<String> lines = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            lines.add(rs.getString(1));
          }
        }
        return String.join("\n", lines);
      } catch (SQLException e) {
        return "EXPLAIN failed: " + e.getMessage();
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }
}
