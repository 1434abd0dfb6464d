package io.twinbox.bench.growth;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The events the measured drain publishes: like {@code relay.Prefill} (random aggregates, ~200-byte
 * JSON, gap-free sequences continuing each aggregate's counter), but in one statement that also
 * advances the counters from the inserted rows only, and without the VACUUM: a VACUUM here would
 * clean up exactly the dead rows some cases measure. A CHECKPOINT follows, so that the drain does
 * not share the disk with one.
 */
final class PendingEvents {
  private PendingEvents() {}

  private static final String WRITE = """
      WITH ev AS (
        SELECT g, 'order-' || floor(random() * ?)::int AS agg FROM generate_series(1, ?) AS g),
      numbered AS (
        SELECT g, agg, row_number() OVER (PARTITION BY agg ORDER BY g) AS rn FROM ev),
      ins AS (
        INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                    occurred_at)
        SELECT $ID, 'Order', n.agg, coalesce(a.last_sequence, 0) + n.rn, 'OrderCreated', 1,
               format('{"orderId":%s,"customer":"customer-%s","amount":"%s.%s","currency":"EUR","items":[{"sku":"SKU-%s","qty":%s},{"sku":"SKU-%s","qty":1}],"shipping":{"country":"DE","zip":"%s"},"channel":"web"}',
                      n.g, n.g % 10000, 10 + n.g % 990, lpad((n.g % 100)::text, 2, '0'), lpad((n.g % 100000)::text, 5, '0'),
                      1 + n.g % 5, lpad((n.g * 7 % 100000)::text, 5, '0'), lpad((n.g % 100000)::text, 5, '0'))::jsonb,
               '{}'::jsonb, clock_timestamp()
          FROM numbered n
          LEFT JOIN twinbox_aggregate a ON a.aggregate_type = 'Order' AND a.aggregate_id = n.agg
         ORDER BY n.g
        RETURNING aggregate_id, sequence)
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
      SELECT 'Order', aggregate_id, max(sequence) FROM ins GROUP BY aggregate_id
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = excluded.last_sequence""";

  /** Writes {@code events} pending events over {@code aggregates} aggregates, ids made as {@code ids}; returns seconds taken. */
  static double write(DataSource admin, int events, int aggregates, History.Ids ids) throws SQLException {
    long t0 = System.nanoTime();
    try (Connection c = admin.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(WRITE.replace("$ID", ids.sql("clock_timestamp()")))) {
        ps.setInt(1, aggregates);
        ps.setInt(2, events);
        ps.executeUpdate();
      }
      c.commit();
      c.setAutoCommit(true);
    }
    History.run(admin, "CHECKPOINT");
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Rows still PENDING (through the partial pending index). */
  static long pending(DataSource admin) throws SQLException {
    return History.scalar(admin, "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'");
  }
}
