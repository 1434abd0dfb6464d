package io.twinbox.bench.wal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A backlog for the WAL relay, written as an application writes it: {@code perTx} events per
 * committed transaction, each through the library's own statement shape (the per-aggregate counter
 * upsert, then the row with the counter's value), random aggregates, the ~200-byte payloads of the
 * other scenarios. Written while no relay streams, after the slot was created, so that the events
 * wait in the WAL (and in the table) as after an outage of the relay — the same backlog as
 * Debezium's in {@code DebeziumRelay}. Then {@code VACUUM ANALYZE} and {@code CHECKPOINT}, as
 * before every other drain.
 */
final class WalBacklog {
  private WalBacklog() {}

  private static final String PROCEDURE = """
      CREATE OR REPLACE PROCEDURE bench_wal_prefill(n int, aggs int, per_tx int)
      LANGUAGE plpgsql AS $$
      DECLARE
        i int := 0;
        g int;
        agg text;
        seq bigint;
      BEGIN
        WHILE i < n LOOP
          FOR g IN i + 1 .. least(i + per_tx, n) LOOP
            agg := 'order-' || floor(random() * aggs)::int;
            INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence) VALUES ('Order', agg, 1)
            ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
            RETURNING last_sequence INTO seq;
            INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                        occurred_at)
            VALUES (gen_random_uuid(), 'Order', agg, seq, 'OrderCreated', 1,
                    format('{"orderId":%s,"customer":"customer-%s","amount":"%s.%s","currency":"EUR","items":[{"sku":"SKU-%s","qty":%s},{"sku":"SKU-%s","qty":1}],"shipping":{"country":"DE","zip":"%s"},"channel":"web"}',
                           g, g % 10000, 10 + g % 990, lpad((g % 100)::text, 2, '0'), lpad((g % 100000)::text, 5, '0'),
                           1 + g % 5, lpad((g * 7 % 100000)::text, 5, '0'), lpad((g % 100000)::text, 5, '0'))::jsonb,
                    '{}'::jsonb, clock_timestamp());
          END LOOP;
          COMMIT;
          i := i + per_tx;
        END LOOP;
      END $$""";

  /** Writes {@code events} events, {@code perTx} per transaction. {@code during} brackets the writing. */
  static void write(DataSource admin, int events, int aggregates, int perTx, Runnable before, Runnable after)
      throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute(PROCEDURE);
      // The WAL the relay reads is the same with or without waiting for each commit's flush.
      st.execute("SET synchronous_commit = off");
      try (PreparedStatement ps = c.prepareStatement("CALL bench_wal_prefill(?, ?, ?)")) {
        ps.setInt(1, events);
        ps.setInt(2, aggregates);
        ps.setInt(3, perTx);
        before.run();
        ps.execute();
        after.run();
      }
      st.execute("RESET synchronous_commit");
      st.execute("VACUUM ANALYZE twinbox_outbox");
      st.execute("VACUUM ANALYZE twinbox_aggregate");
      st.execute("CHECKPOINT");
    }
  }
}
