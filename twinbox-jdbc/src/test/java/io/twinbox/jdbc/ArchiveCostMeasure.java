package io.twinbox.jdbc;

import io.twinbox.testkit.contract.Sql;
import java.time.Duration;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The measurement behind docs/retention.md's archive cost: rows/s of {@code archivePublished} vs {@code
 * purgePublished} over 100k PUBLISHED rows, batches of 500, two rounds per database. Not a test (no
 * assertion; its name keeps it out of the default build): run it with {@code -Dtest=ArchiveCostMeasure}
 * and read the MEASURE lines of its output.
 */
class ArchiveCostMeasure {
  static final int N = 100_000;

  @Test
  void measure() throws Exception {
    for (JdbcFixture f : new JdbcFixture[] {JdbcFixture.postgres(), JdbcFixture.mariadb()}) {
      try {
        for (int round = 0; round < 2; round++) {
          for (boolean archive : new boolean[] {false, true}) {
            f.reset();
            Sql.exec(f.dataSource(), "DELETE FROM twinbox_outbox_archive");
            fill(f);
            JdbcStore s = f.jdbcStore();
            IntSupplier step = archive ? () -> s.archivePublished(Duration.ofMinutes(1), 500)
                : () -> s.purgePublished(Duration.ofMinutes(1), 500);
            long t0 = System.nanoTime();
            long total = 0;
            for (int n; (n = step.getAsInt()) > 0; ) {
              total += n;
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("MEASURE %s round %d %s: %d rows in %.2f s = %.0f rows/s%n", f.name(), round,
                archive ? "archive" : "delete", total, secs, total / secs);
          }
        }
      } finally {
        f.close();
      }
    }
  }

  static void fill(JdbcFixture f) throws Exception {
    String payload = "'{\"orderId\": \"o-123456\", \"amount\": 4200, \"currency\": \"EUR\", \"lines\": [1, 2, 3]}'";
    if (f.name().equals("PostgreSQL")) {
      Sql.exec(f.dataSource(), "INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version,"
          + " payload, headers, status, published_at) SELECT gen_random_uuid(), 'Order', 'o-' || (g % 1000), g,"
          + " 'OrderCreated', 1, " + payload + ", '{\"tenant\": \"t-1\"}', 'PUBLISHED', clock_timestamp() - interval"
          + " '1 hour' FROM generate_series(1, " + N + ") g");
      Sql.exec(f.dataSource(), "ANALYZE twinbox_outbox");
    } else {
      Sql.exec(f.dataSource(), "INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version,"
          + " payload, headers, status, published_at) SELECT UUID(), 'Order', CONCAT('o-', seq % 1000), seq,"
          + " 'OrderCreated', 1, " + payload + ", '{\"tenant\": \"t-1\"}', 'PUBLISHED', UTC_TIMESTAMP(6) - INTERVAL"
          + " 1 HOUR FROM seq_1_to_" + N);
      Sql.exec(f.dataSource(), "ANALYZE TABLE twinbox_outbox");
    }
  }
}
