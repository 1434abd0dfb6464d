package io.twinbox.faults;

import io.twinbox.faults.child.ConsumerMain;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * FAULTS D6: writes an event whose handler halts the consumer's JVM ({@code Runtime.halt}, as an
 * OOM kill would end it) and starts every consumer that died again — as a supervisor
 * (systemd, Kubernetes) would — until the inbox has parked the event, counting the restarts.
 * Bounded: a consumer that crash-loops forever runs out the patience, and the row fails.
 */
final class HaltingPoison {
  private static final Duration PATIENCE = Duration.ofMinutes(4);

  private HaltingPoison() {}

  static String play(FaultRun run) {
    UUID id = run.writeEvent(ConsumerMain.HALT, null, "{\"poison\":\"halt\"}", true);
    run.observe(new Observation.Poison(id, ConsumerMain.HALT));
    long t0 = System.nanoTime();
    long deadline = t0 + PATIENCE.toNanos();
    int restarts = 0;
    boolean parked = false;
    while (System.nanoTime() < deadline) {
      if (parked(run, id)) {
        parked = true;
        break;
      }
      for (ChildJvm consumer : run.consumers()) {
        if (!consumer.isAlive()) {
          run.restart(consumer);
          restarts++;
        }
      }
      ChildJvm.sleep(200);
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    run.observe(new Observation.Halts(id, restarts, parked, ms));
    return id + (parked ? " parked" : " NOT parked") + " after " + restarts + " consumer restarts, " + ms + "ms";
  }

  private static boolean parked(FaultRun run, UUID id) {
    try (Connection c = run.consumerDataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM twinbox_inbox_parked WHERE message_id = ?")) {
      ps.setString(1, id.toString());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
