package io.twinbox.bench.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Fills the outbox with pending events in one server-side statement (setup, not measured): random
 * aggregates, ~200-byte JSON payloads, gap-free per-aggregate sequences continuing each aggregate's
 * counter, positions in insertion order. Then VACUUM ANALYZE and CHECKPOINT, so every drain starts
 * from the same state.
 */
public final class Prefill {
  private Prefill() {}

  private static final String FILL = """
      WITH ev AS (
        SELECT g, 'order-' || floor(random() * ?)::int AS agg FROM generate_series(1, ?) AS g),
      numbered AS (
        SELECT g, agg, row_number() OVER (PARTITION BY agg ORDER BY g) AS rn FROM ev)
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  occurred_at)
      SELECT gen_random_uuid(), 'Order', n.agg, coalesce(a.last_sequence, 0) + n.rn, 'OrderCreated', 1,
             format('{"orderId":%s,"customer":"customer-%s","amount":"%s.%s","currency":"EUR","items":[{"sku":"SKU-%s","qty":%s},{"sku":"SKU-%s","qty":1}],"shipping":{"country":"DE","zip":"%s"},"channel":"web"}',
                    n.g, n.g % 10000, 10 + n.g % 990, lpad((n.g % 100)::text, 2, '0'), lpad((n.g % 100000)::text, 5, '0'),
                    1 + n.g % 5, lpad((n.g * 7 % 100000)::text, 5, '0'), lpad((n.g % 100000)::text, 5, '0'))::jsonb,
             '{}'::jsonb, clock_timestamp()
        FROM numbered n
        LEFT JOIN twinbox_aggregate a ON a.aggregate_type = 'Order' AND a.aggregate_id = n.agg
       ORDER BY n.g""";

  private static final String COUNTERS = """
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
      SELECT aggregate_type, aggregate_id, max(sequence) FROM twinbox_outbox
       WHERE aggregate_id IS NOT NULL GROUP BY aggregate_type, aggregate_id
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = excluded.last_sequence""";

  /**
   * Inserts {@code events} pending events over {@code aggregates} aggregates.
   *
   * @param admin an auto-commit data source
   */
  public static void fill(DataSource admin, int events, int aggregates) throws SQLException {
    try (Connection c = admin.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(FILL)) {
        ps.setInt(1, aggregates);
        ps.setInt(2, events);
        ps.executeUpdate();
      }
      try (Statement st = c.createStatement()) {
        st.executeUpdate(COUNTERS);
      }
      c.commit();
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.execute("VACUUM ANALYZE twinbox_outbox");
        st.execute("VACUUM ANALYZE twinbox_aggregate");
        st.execute("CHECKPOINT");
      }
    }
  }

  /** Rows left in the outbox. */
  public static long count(DataSource admin) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM twinbox_outbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Empties the outbox (between runs, if a drain left rows behind). */
  public static void clear(DataSource admin) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE twinbox_outbox");
    }
  }
}
