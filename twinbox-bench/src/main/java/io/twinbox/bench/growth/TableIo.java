package io.twinbox.bench.growth;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Where a drain's database work went: buffer accesses (read from outside shared buffers, and hit)
 * of the outbox's heap and of each of its indexes, and the WAL written (bytes and full-page
 * images), as the difference of two snapshots of PostgreSQL's cumulative statistics. Take the
 * second snapshot after the relay's pool is closed: a backend reports its counters when it ends.
 * The WAL figures are the whole server's, so the machine must be quiet. On a partitioned outbox the
 * partitions' heaps and indexes are summed under the parent's index names; a partition dropped
 * meanwhile (retention) is left out, its work with it, and one created meanwhile counts from zero.
 */
final class TableIo {
  private final Map<String, long[]> blocks;
  private final long walBytes;
  private final long walFpi;

  private TableIo(Map<String, long[]> blocks, long walBytes, long walFpi) {
    this.blocks = blocks;
    this.walBytes = walBytes;
    this.walFpi = walFpi;
  }

  static TableIo snapshot(DataSource admin) throws SQLException {
    Map<String, long[]> blocks = new LinkedHashMap<>();
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute("SELECT pg_stat_force_next_flush()");
      st.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rs = st.executeQuery("""
          WITH parts AS (SELECT relid FROM pg_partition_tree('twinbox_outbox') WHERE isleaf
                         UNION ALL  -- a table that is not partitioned has no partition tree
                         SELECT 'twinbox_outbox'::regclass WHERE NOT EXISTS (SELECT FROM pg_partition_tree('twinbox_outbox')))
          SELECT 'heap', relid, coalesce(heap_blks_read, 0), coalesce(heap_blks_hit, 0)
            FROM pg_statio_user_tables WHERE relid IN (SELECT relid FROM parts)
          UNION ALL
          SELECT coalesce(p.relname, s.indexrelname), s.indexrelid, coalesce(s.idx_blks_read, 0),
                 coalesce(s.idx_blks_hit, 0)
            FROM pg_statio_user_indexes s
            LEFT JOIN pg_inherits i ON i.inhrelid = s.indexrelid
            LEFT JOIN pg_class p ON p.oid = i.inhparent
           WHERE s.relid IN (SELECT relid FROM parts)""")) {
        while (rs.next()) {
          blocks.put(rs.getString(1) + "/" + rs.getLong(2), new long[] {rs.getLong(3), rs.getLong(4)});
        }
      }
      try (ResultSet rs = st.executeQuery("SELECT wal_bytes, wal_fpi FROM pg_stat_wal")) {
        rs.next();
        return new TableIo(blocks, rs.getLong(1), rs.getLong(2));
      }
    }
  }

  /**
   * Per heap and index: {@code blks_<name>_per_event} (read + hit, per drained event) and
   * {@code read_<name>} (blocks read from outside shared buffers); {@code wal_mb} and
   * {@code wal_fpi} written meanwhile; {@code wal_bytes_per_event}.
   */
  Map<String, Object> since(TableIo before, long events) {
    Map<String, Object> m = new LinkedHashMap<>();
    double n = Math.max(1, events);
    Map<String, long[]> byName = new LinkedHashMap<>();
    blocks.forEach((key, now) -> {
      long[] was = before.blocks.getOrDefault(key, new long[2]);
      long[] sum = byName.computeIfAbsent(key.substring(0, key.lastIndexOf('/')), k -> new long[2]);
      sum[0] += now[0] - was[0];
      sum[1] += now[1] - was[1];
    });
    byName.forEach((name, d) -> {
      String key = name.replaceFirst("^twinbox_outbox_?", "");
      key = key.isEmpty() ? "pkey" : key;
      m.put("blks_" + key + "_per_event", Math.round((d[0] + d[1]) / n * 100) / 100.0);
      m.put("read_" + key, d[0]);
    });
    m.put("wal_mb", Math.round((walBytes - before.walBytes) / 1048576.0 * 10) / 10.0);
    m.put("wal_fpi", walFpi - before.walFpi);
    m.put("wal_bytes_per_event", Math.round((walBytes - before.walBytes) / n));
    return m;
  }
}
