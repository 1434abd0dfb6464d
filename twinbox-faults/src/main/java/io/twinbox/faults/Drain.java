package io.twinbox.faults;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The full drain every fault run ends with: waits until nothing is pending in the producer's outbox
 * and the consumers applied or parked every committed order, giving up only when nothing moved for
 * {@code patience}. Shared by {@link FaultRun} and {@link SoakRun}.
 */
final class Drain {
  private static final Logger LOG = LoggerFactory.getLogger(Drain.class);

  private Drain() {}

  static void untilApplied(DataSource producer, DataSource consumer, Duration patience, long pollMillis,
      String run) {
    long committed = count(producer, "SELECT count(*) FROM orders");
    long lastProgress = System.nanoTime();
    long lastDone = -1;
    while (true) {
      long pending = count(producer, "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'");
      long done = count(consumer, "SELECT count(*) FROM effect")
          + count(consumer, "SELECT count(DISTINCT message_id) FROM twinbox_inbox_parked");
      if (pending == 0 && done >= committed) {
        return;
      }
      if (done != lastDone) {
        lastDone = done;
        lastProgress = System.nanoTime();
      }
      if (System.nanoTime() - lastProgress > patience.toNanos()) {
        LOG.warn("{}: drain stalled: pending={} consumed={} of {}", run, pending, done, committed);
        return;
      }
      ChildJvm.sleep(pollMillis);
    }
  }

  static long count(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
