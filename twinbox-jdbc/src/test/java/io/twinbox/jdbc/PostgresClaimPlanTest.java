package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A drained outbox has "empty" statistics exactly when a burst arrives. The claim must walk the
 * partial pending index in both states, never scan and sort the table.
 */
class PostgresClaimPlanTest {
  static PostgresDatabase db;
  static JdbcStore store;

  @BeforeAll
  static void setUp() {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
  }

  private static void exec(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static String plan(List<PartitionLease> leases) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        return PostgresDialect.INSTANCE.explainClaim(c, "planner", leases, 500);
      } finally {
        c.rollback();
      }
    }
  }

  @Test
  void theClaimStaysOnThePendingIndexWhateverTheStatisticsSay() throws Exception {
    List<PartitionLease> leases = store.acquire("planner", 32, Duration.ofMinutes(5));
    exec("ANALYZE twinbox_outbox"); // statistics of an empty table
    String empty = plan(leases);
    exec("""
        INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload)
        SELECT 'Order', 'o' || (g % 1000), 'OrderCreated', 1, '{"a":1}' FROM generate_series(1, 20000) g""");
    exec("ANALYZE twinbox_outbox"); // statistics of a full table
    String full = plan(leases);
    for (String p : List.of(empty, full)) {
      assertThat(p).contains("Index Scan using twinbox_outbox_pending on twinbox_outbox o")
          .doesNotContain("Seq Scan on twinbox_outbox")
          .doesNotContain("Sort")
          .contains("twinbox_outbox_held");
    }
  }
}
