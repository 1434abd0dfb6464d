package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On a partitioned outbox the claim walks each partition's partial pending index and merges them in
 * position order (Merge Append): no sequential scan and no sort, with statistics of an empty table
 * and of one that holds history in older partitions.
 */
class PostgresPartitionedClaimPlanTest {
  @Test
  void theClaimMergesThePendingIndexesOfThePartitions() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      JdbcStore store = JdbcStore.builder(db.dataSource()).partitionedOutbox().build();
      store.migrate();
      // History: a partition of yesterday with published rows (created before today's partitions).
      Sql.exec(db.dataSource(), "CREATE TABLE twinbox_outbox_20000101t000000 PARTITION OF twinbox_outbox"
          + " FOR VALUES FROM ('2000-01-01 00:00:00+00') TO ('2000-01-02 00:00:00+00')");
      List<PartitionLease> leases = store.acquire("planner", 32, Duration.ofMinutes(5));
      Sql.exec(db.dataSource(), "ANALYZE twinbox_outbox");
      String empty = plan(store, leases);
      Sql.exec(db.dataSource(), """
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, created_at,
                                      status, published_at)
          SELECT gen_random_uuid(), 'Order', 'o' || (g % 1000), g, 'OrderCreated', 1, '{"a":1}',
                 '2000-01-01 12:00:00+00', 'PUBLISHED', '2000-01-01 12:00:01+00' FROM generate_series(1, 20000) g""");
      Sql.exec(db.dataSource(), """
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload)
          SELECT gen_random_uuid(), 'Order', 'p' || (g % 1000), g, 'OrderCreated', 1, '{"a":1}'
            FROM generate_series(1, 5000) g""");
      Sql.exec(db.dataSource(), "ANALYZE twinbox_outbox");
      String full = plan(store, leases);
      for (String p : List.of(empty, full)) {
        assertThat(p).contains("Merge Append").containsPattern("Index Scan using twinbox_outbox_\\w+_position_idx on")
            .doesNotContain("Seq Scan").doesNotContainPattern("(^|->)\\s*Sort\\s+\\(");
      }
      assertThat(full).as("the old partition is walked on its (empty) pending index")
          .containsPattern("twinbox_outbox_20000101t000000_position_idx on twinbox_outbox_20000101t000000");
      System.out.println("claim plan on a partitioned outbox with history:\n" + full);
    }
  }

  private static String plan(JdbcStore store, List<PartitionLease> leases) throws Exception {
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        return PostgresDialect.INSTANCE.explainClaim(c, "planner", leases, 500);
      } finally {
        c.rollback();
      }
    }
  }
}
