package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Retention after months of MARK mode: every PUBLISHED row is due. A batch must walk the partial
 * published index oldest first; a sequential scan that stops at the first {@code limit} matches
 * re-reads every page earlier batches emptied, so a purge of millions of rows slows down batch
 * after batch (BENCHMARKS.md, "Growth").
 */
class PostgresPurgePlanTest {
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

  private static long count(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aBacklogOfDueRowsIsPurgedThroughThePublishedIndexOldestFirst() throws Exception {
    // 20,000 PUBLISHED rows, all older than the retention age, positions in reverse age order
    // (the newest first), so that "oldest first" differs from both heap and position order.
    exec("""
        INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, sequence, type, version, payload, status,
                                    published_at)
        SELECT 'Order', 'o' || (g % 1000), g, 'OrderCreated', 1, '{"a":1}', 'PUBLISHED',
               clock_timestamp() - interval '31 days' - g * interval '1 minute'
          FROM generate_series(1, 20000) g""");
    exec("ANALYZE twinbox_outbox");
    String plan;
    try (Connection c = db.dataSource().getConnection()) {
      plan = PostgresDialect.INSTANCE.explainPurge(c, Duration.ofDays(30), 500);
    }
    assertThat(plan).contains("Index Scan using twinbox_outbox_published on twinbox_outbox twinbox_outbox_1")
        .doesNotContain("Seq Scan on twinbox_outbox twinbox_outbox_1").doesNotContain("Sort");

    assertThat(store.purgePublished(Duration.ofDays(30), 500)).isEqualTo(500);
    // The 500 oldest are gone: the highest positions, which were inserted with the oldest dates.
    assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE position > 19500")).isZero();
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(19_500);
  }
}
