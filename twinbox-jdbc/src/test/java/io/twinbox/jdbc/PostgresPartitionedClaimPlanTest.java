package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * On a partitioned outbox the claim walks each partition's partial pending index and merges them in
 * position order (Merge Append): no sequential scan and no sort, with statistics of an empty table
 * and of one that holds history in older partitions. Its check for held aggregates reads the held
 * rows once (a hashed subplan), so its work does not grow with the number of partitions.
 */
class PostgresPartitionedClaimPlanTest {
  /** Days of history partitions, as a daily outbox keeps for a month (and more). */
  private static final int OLD_PARTITIONS = 60;

  @Test
  void theClaimMergesThePendingIndexesOfThePartitions() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      JdbcStore store = JdbcStore.builder(db.dataSource()).partitionedOutbox().build();
      store.migrate();
      // History: partitions of past days with published rows (created before today's partitions).
      for (int day = 1; day <= OLD_PARTITIONS; day++) {
        String from = String.format("2000-%02d-%02d", 1 + (day - 1) / 28, 1 + (day - 1) % 28);
        String to = String.format("2000-%02d-%02d", 1 + (day - 1) / 28, 2 + (day - 1) % 28);
        Sql.exec(db.dataSource(), "CREATE TABLE twinbox_outbox_old" + day + " PARTITION OF twinbox_outbox"
            + " FOR VALUES FROM ('" + from + " 00:00:00+00') TO ('" + to + " 00:00:00+00')");
      }
      List<PartitionLease> leases = store.acquire("planner", 32, Duration.ofMinutes(5));
      Sql.exec(db.dataSource(), "ANALYZE twinbox_outbox");
      String empty = plan(store, leases, "");
      Sql.exec(db.dataSource(), """
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, created_at,
                                      status, published_at)
          SELECT gen_random_uuid(), 'Order', 'o' || (g % 1000), g, 'OrderCreated', 1, '{"a":1}',
                 '2000-01-01 12:00:00+00', 'PUBLISHED', '2000-01-01 12:00:01+00' FROM generate_series(1, 20000) g""");
      Sql.exec(db.dataSource(), """
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload)
          SELECT gen_random_uuid(), 'Order', 'p' || (g % 1000), g, 'OrderCreated', 1, '{"a":1}'
            FROM generate_series(1, 5000) g""");
      // One aggregate held back by a FAILED row: the exact probe runs for its rows only.
      Sql.exec(db.dataSource(), "UPDATE twinbox_outbox SET status = 'FAILED', attempts = 1"
          + " WHERE aggregate_id = 'p7' AND sequence = 7");
      Sql.exec(db.dataSource(), "ANALYZE twinbox_outbox");
      String full = plan(store, leases, "");
      for (String p : List.of(empty, full)) {
        assertThat(p).contains("Merge Append").containsPattern("Index Scan using twinbox_outbox_\\w+_position_idx on")
            .doesNotContain("Seq Scan").doesNotContainPattern("(^|->)\\s*Sort\\s+\\(")
            .as("held aggregates read once, hashed").contains("hashed SubPlan");
      }
      assertThat(full).as("the old partition is walked on its (empty) pending index")
          .containsPattern("twinbox_outbox_old1_position_idx on twinbox_outbox_old1");
      String run = plan(store, leases, "(ANALYZE, BUFFERS)");
      System.out.println("claim plan on a partitioned outbox with history:\n" + run);
      int partitions = OLD_PARTITIONS + 4;
      assertThat(run).as("a full batch").containsPattern("Limit .*actual time=\\S+ rows=500 loops=1");
      // The per-row probe visited each partition's held index for each candidate: 2 buffers per partition per
      // row, 64,000 here. Reading the held rows once costs about one buffer per partition.
      assertThat(buffersHit(run)).as("buffers of a claim of 500 over %d partitions", partitions)
          .isLessThan(4_000 + 10 * partitions);
    }
  }

  private static long buffersHit(String plan) {
    Matcher m = Pattern.compile("Buffers: shared hit=(\\d+)").matcher(plan);
    assertThat(m.find()).as("buffers in\n%s", plan).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String plan(JdbcStore store, List<PartitionLease> leases, String options) throws Exception {
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        return PostgresDialect.INSTANCE.explainClaimPartitioned(c, options, "planner", leases, 500);
      } finally {
        c.rollback();
      }
    }
  }
}
