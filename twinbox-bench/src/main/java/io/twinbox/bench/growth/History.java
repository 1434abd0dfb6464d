package io.twinbox.bench.growth;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Months of past traffic in the outbox, written in bulk (setup, not measured): {@code rows} events
 * over {@code aggregates} aggregates (gap-free per-aggregate sequences, which spreads them over the
 * 64 partitions through the generated {@code partition_no}), ~250-byte JSON payloads (1,000
 * distinct ones, so that the server does not build a document per row), a W3C traceparent, and
 * {@code occurred_at}/{@code published_at} spread evenly from 120 to 35 days ago. Inserted in
 * chunks of {@code chunk} rows, one transaction each, through the schema of {@code migrate()}.
 */
final class History {
  private History() {}

  /** Where the history rows stand. */
  enum Status { PUBLISHED, PENDING }

  /**
   * How the bench's SQL makes event ids. {@code TIME_ORDERED} is what Twinbox's writers do (UUIDv7:
   * 48 bits of milliseconds first, so new ids land at the right edge of the id index);
   * {@code RANDOM} ({@code gen_random_uuid()}, UUIDv4) is what the runs before 2026-12-02 used, and
   * what a writer that supplies random ids gets: new ids scattered over the whole id index.
   */
  enum Ids {
    TIME_ORDERED, RANDOM;

    /** The SQL of one id made at time {@code ts} (an SQL expression). */
    String sql(String ts) {
      return this == RANDOM ? "gen_random_uuid()"
          : "overlay(overlay(lpad(to_hex(floor(extract(epoch FROM " + ts + ") * 1000)::bigint), 12, '0')"
              + " || substr(md5(random()::text), 1, 20) PLACING '7' FROM 13) PLACING '8' FROM 17)::uuid";
    }
  }

  private static final String FILL = """
      WITH p AS MATERIALIZED (
        SELECT k, format('{"orderId":%s,"customer":"customer-%s","amount":"%s.%s","currency":"EUR","items":[{"sku":"SKU-%s","qty":%s},{"sku":"SKU-%s","qty":1}],"shipping":{"country":"DE","zip":"%s"},"channel":"web"}',
                         100000 + k * 7919, k * 13 % 10000, 10 + k % 990, lpad((k % 100)::text, 2, '0'),
                         lpad((k * 31 % 100000)::text, 5, '0'), 1 + k % 5, lpad((k * 7 % 100000)::text, 5, '0'),
                         lpad((k * 17 % 100000)::text, 5, '0'))::jsonb AS payload
          FROM generate_series(0, 999) AS k)
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  traceparent, occurred_at, created_at, status, published_at)
      SELECT $ID, 'Order', 'order-' || (g % ?), g / ? + 1, 'OrderCreated', 1, p.payload, '{}'::jsonb,
             '00-' || md5(g::text) || '-' || substr(md5((g + 1)::text), 1, 16) || '-01', t.ts, t.ts,
             ?, CASE WHEN ? = 'PUBLISHED' THEN t.ts + interval '40 milliseconds' END
        FROM generate_series(?, ?) AS g
        JOIN p ON p.k = g % 1000
        CROSS JOIN LATERAL (SELECT ?::timestamptz + g * ? * interval '1 microsecond' AS ts) AS t
       ORDER BY g""";

  /** Each aggregate's counter at its last history event, computed (no scan of the history). */
  private static final String COUNTERS = """
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
      SELECT 'Order', 'order-' || k, (? - 1 - k) / ? + 1 FROM generate_series(0, least(?, ?) - 1) AS k
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE
        SET last_sequence = greatest(twinbox_aggregate.last_sequence, excluded.last_sequence)""";

  /**
   * Inserts {@code rows} history events with {@code status}; printing progress per chunk. The
   * positions continue the table's identity, so history always sits before what is written later.
   */
  static void fill(DataSource admin, long rows, long chunk, int aggregates, Status status, Ids ids)
      throws SQLException {
    String fill = FILL.replace("$ID", ids.sql("t.ts"));
    long t0 = System.nanoTime();
    java.sql.Timestamp from = java.sql.Timestamp.from(java.time.Instant.now().minus(java.time.Duration.ofDays(120)));
    long stepMicros = java.time.Duration.ofDays(85).toNanos() / 1000 / Math.max(1, rows);
    try (Connection c = admin.getConnection()) {
      for (long start = 0; start < rows; start += chunk) {
        long end = Math.min(rows, start + chunk) - 1;
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement(fill)) {
          int i = 1;
          ps.setInt(i++, aggregates);
          ps.setInt(i++, aggregates);
          ps.setString(i++, status.name());
          ps.setString(i++, status.name());
          ps.setLong(i++, start);
          ps.setLong(i++, end);
          ps.setTimestamp(i++, from);
          ps.setLong(i, stepMicros);
          ps.executeUpdate();
        }
        c.commit();
        c.setAutoCommit(true);
        System.out.printf("    history: %,d of %,d %s rows after %.0f s%n", end + 1, rows, status,
            (System.nanoTime() - t0) / 1e9);
      }
      try (PreparedStatement ps = c.prepareStatement(COUNTERS)) {
        ps.setLong(1, rows);
        ps.setInt(2, aggregates);
        ps.setLong(3, rows);
        ps.setInt(4, aggregates);
        ps.executeUpdate();
      }
    }
  }

  /**
   * On a partitioned outbox: the daily partitions of the past {@code days} days, up to the first one
   * the migration made (which starts today), as a relay running all that time would have made them.
   */
  static void pastPartitions(DataSource admin, int days) throws SQLException {
    run(admin, """
        DO $$
        DECLARE d timestamptz;
        BEGIN
          FOR d IN SELECT generate_series((SELECT min(lower_bound) FROM twinbox_outbox_partitions) - interval '%d days',
                                          (SELECT min(lower_bound) FROM twinbox_outbox_partitions) - interval '1 day',
                                          interval '1 day') LOOP
            EXECUTE format('CREATE TABLE IF NOT EXISTS %%I PARTITION OF twinbox_outbox FOR VALUES FROM (%%L) TO (%%L)',
                           'twinbox_outbox_' || to_char(d AT TIME ZONE 'UTC', 'YYYYMMDD"t"HH24MISS'), d, d + interval '1 day');
          END LOOP;
        END $$""".formatted(days));
  }

  /** Deletes every row in position-range chunks, as a DELETE-mode relay would have over time. */
  static long deleteAll(DataSource admin, long chunk) throws SQLException {
    long t0 = System.nanoTime();
    long deleted = 0;
    try (Connection c = admin.getConnection()) {
      long max = scalar(c, "SELECT coalesce(max(position), 0) FROM twinbox_outbox");
      long min = scalar(c, "SELECT coalesce(min(position), 0) FROM twinbox_outbox");
      for (long from = min; from <= max; from += chunk) {
        try (PreparedStatement ps = c.prepareStatement(
            "DELETE FROM twinbox_outbox WHERE position >= ? AND position < ?")) {
          ps.setLong(1, from);
          ps.setLong(2, from + chunk);
          deleted += ps.executeUpdate();
        }
        System.out.printf("    deleted %,d rows after %.0f s%n", deleted, (System.nanoTime() - t0) / 1e9);
      }
    }
    return deleted;
  }

  /** Turns autovacuum on or off for the outbox table (so that "before autovacuum" is a state, not a race). */
  static void autovacuum(DataSource admin, boolean on) throws SQLException {
    run(admin, "ALTER TABLE twinbox_outbox SET (autovacuum_enabled = " + on + ")");
  }

  static void run(DataSource admin, String sql) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Timed {@code sql} (VACUUM, CHECKPOINT...), seconds. */
  static double timed(DataSource admin, String sql) throws SQLException {
    long t0 = System.nanoTime();
    run(admin, sql);
    double s = (System.nanoTime() - t0) / 1e9;
    System.out.printf("    %s: %.1f s%n", sql, s);
    return Math.round(s * 10) / 10.0;
  }

  /** Table and index sizes, live/dead tuple estimates: what the relay walks. */
  static Map<String, Object> shape(DataSource admin) throws SQLException {
    Map<String, Object> m = new LinkedHashMap<>();
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute("SELECT pg_stat_force_next_flush()");
      try (ResultSet rs = st.executeQuery("""
          WITH parts AS (SELECT relid FROM pg_partition_tree('twinbox_outbox') WHERE isleaf
                         UNION ALL  -- a table that is not partitioned has no partition tree
                         SELECT 'twinbox_outbox'::regclass WHERE NOT EXISTS (SELECT FROM pg_partition_tree('twinbox_outbox')))
          SELECT (SELECT sum(pg_relation_size(relid)) FROM parts),
                 (SELECT sum(pg_total_relation_size(relid)) FROM parts),
                 (SELECT coalesce(sum(pg_relation_size(relid)), pg_relation_size('twinbox_outbox_pending')) FROM pg_partition_tree('twinbox_outbox_pending')),
                 (SELECT coalesce(sum(pg_relation_size(relid)), pg_relation_size('twinbox_outbox_published')) FROM pg_partition_tree('twinbox_outbox_published')),
                 (SELECT coalesce(sum(pg_relation_size(relid)), pg_relation_size('twinbox_outbox_held')) FROM pg_partition_tree('twinbox_outbox_held')),
                 (SELECT sum(n_live_tup) FROM pg_stat_user_tables WHERE relid IN (SELECT relid FROM parts)),
                 (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE relid IN (SELECT relid FROM parts)),
                 (SELECT count(*) FROM parts)""")) {
        rs.next();
        m.put("table_mb", mb(rs.getLong(1)));
        m.put("total_mb", mb(rs.getLong(2)));
        m.put("pending_index_mb", mb(rs.getLong(3)));
        m.put("published_index_mb", mb(rs.getLong(4)));
        m.put("held_index_mb", mb(rs.getLong(5)));
        m.put("live_tuples", rs.getLong(6));
        m.put("dead_tuples", rs.getLong(7));
        m.put("heap_partitions", rs.getLong(8));
      }
    }
    return m;
  }

  private static double mb(long bytes) {
    return Math.round(bytes / 1048576.0 * 10) / 10.0;
  }

  static long scalar(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static long scalar(DataSource admin, String sql) throws SQLException {
    try (Connection c = admin.getConnection()) {
      return scalar(c, sql);
    }
  }
}
