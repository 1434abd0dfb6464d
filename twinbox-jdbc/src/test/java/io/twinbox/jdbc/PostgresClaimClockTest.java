package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The claim judges "due" and "held back" at one instant. With {@code clock_timestamp()}, which
 * moves while one statement runs, a retrying row could be found not yet due when the scan passed
 * it and no longer holding its aggregate when the scan reached a later row of it: the later row
 * was claimed and published before it (seen as an intermittent order violation in
 * {@code RelayContract#transientFailuresInFullSmallBatchesLetNoLaterEventOvertake}). Here the scan
 * between the two rows is made long on purpose (300,000 pending rows not yet due).
 */
class PostgresClaimClockTest {
  static PostgresDatabase db;
  static JdbcStore store;

  @BeforeAll
  static void setUp() {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static void exec(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void aRowBecomingDueDuringTheClaimStillHoldsItsAggregatesLaterRows() throws Exception {
    String insert = "INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload)"
        + " VALUES (gen_random_uuid(), 'Order', 'a', %d, 'T', 1, '{}')";
    exec(insert.formatted(1));
    exec("""
        INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, next_attempt_at)
        SELECT gen_random_uuid(), 'Filler', NULL, 0, 'T', 1, '{}', clock_timestamp() + interval '1 hour'
          FROM generate_series(1, 300000)""");
    exec(insert.formatted(2));
    exec("VACUUM ANALYZE twinbox_outbox");
    List<PartitionLease> leases = store.acquire("clock", 64, Duration.ofMinutes(5));
    assertThat(leases).hasSize(64);
    // Sequence 1 failed once and waits for its retry: it holds sequence 2 back.
    exec("UPDATE twinbox_outbox SET attempts = 1, next_attempt_at = clock_timestamp() + interval '1 hour'"
        + " WHERE aggregate_id = 'a' AND sequence = 1");
    long started = System.nanoTime();
    assertThat(store.claim("clock", leases, 10)).isEmpty();
    long scanMillis = Math.max(2, (System.nanoTime() - started) / 1_000_000);
    // Now its retry falls due while the claim's scan walks from it to sequence 2 (the scan passes
    // sequence 1 at once and needs about scanMillis to reach sequence 2): at a quarter, half and
    // three quarters of the way.
    for (int quarter = 1; quarter <= 3; quarter++) {
      exec("UPDATE twinbox_outbox SET next_attempt_at = clock_timestamp() + " + scanMillis * quarter / 4
          + " * interval '1 millisecond' WHERE aggregate_id = 'a' AND sequence = 1");
      started = System.nanoTime();
      List<ClaimedRow> claimed = store.claim("clock", leases, 10);
      long millis = (System.nanoTime() - started) / 1_000_000;
      List<Long> sequences = claimed.stream().map(ClaimedRow::sequence).toList();
      System.out.println("[PostgresClaimClockTest] scan " + scanMillis + " ms, due after " + scanMillis * quarter / 4
          + " ms: claim took " + millis + " ms, sequences " + sequences);
      assertThat(sequences.isEmpty() || sequences.get(0) == 1L)
          .as("claimed sequences of aggregate a %s: 2 never without 1 (claim %d ms)", sequences, millis).isTrue();
    }
  }
}
