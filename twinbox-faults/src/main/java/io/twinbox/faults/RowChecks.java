package io.twinbox.faults;

import io.twinbox.faults.child.ConsumerMain;
import io.twinbox.faults.child.RelayMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The figures FAULTS.md's Report column asks of a row beyond the checker's invariants, judged after
 * the drain: C2 (no attempt spent by a long outage), C5 (FAILED at once, aggregate held, others
 * flowing), D5 (attempts exactly max, parked count exact, no starvation), D6 (parked after at most
 * max crashes), D8 (serialization failures and deadlocks retried, nothing parked). A row whose fault
 * was not played at all fails here: a scenario that asserts nothing is a defect.
 *
 * <p>Stateless.
 */
final class RowChecks {
  private RowChecks() {}

  static RowFigures judge(FaultRun run, FaultVerdict verdict) {
    return switch (run.scenario().id()) {
      case "A8" -> contendedAggregates(run, verdict);
      case "C2" -> longOutage(run, verdict);
      case "C5" -> permanentRejection(run, verdict);
      case "C10" -> backlogCatchUp(run, verdict);
      case "D2" -> haltAfterCommit(run, verdict);
      case "D5" -> handlerAlwaysThrows(run, verdict);
      case "D6" -> handlerHaltsTheJvm(run, verdict);
      case "D7" -> hangingHandler(run, verdict);
      case "D8" -> serializationFailures(run, verdict);
      default -> RowFigures.NONE;
    };
  }

  /**
   * A8: with 20 writers on a few aggregates, each aggregate's committed sequences are 1..n without a
   * gap (a rolled-back increment is undone), and its counter row holds n.
   */
  private static RowFigures contendedAggregates(FaultRun run, FaultVerdict verdict) {
    DataSource ds = run.store().dataSource();
    String perAggregate = "SELECT o.aggregate_id, count(*) AS n, min(o.sequence) AS lo, max(o.sequence) AS hi,"
        + " max(a.last_sequence) AS counter FROM twinbox_outbox o JOIN twinbox_aggregate a"
        + " ON a.aggregate_type = o.aggregate_type AND a.aggregate_id = o.aggregate_id GROUP BY o.aggregate_id";
    long aggregates = count(ds, "SELECT count(*) FROM (" + perAggregate + ") t");
    long gaps = count(ds, "SELECT coalesce(sum(hi - n), 0) FROM (" + perAggregate + ") t");
    long badStart = count(ds, "SELECT count(*) FROM (" + perAggregate + ") t WHERE lo <> 1");
    long counterOff = count(ds, "SELECT count(*) FROM (" + perAggregate + ") t WHERE counter <> hi");
    long events = count(ds, "SELECT count(*) FROM twinbox_outbox WHERE aggregate_id IS NOT NULL");
    boolean ok = aggregates == run.scenario().contendedAggregates() && gaps == 0 && badStart == 0 && counterOff == 0
        && verdict.rolledBack() > 0;
    return new RowFigures(FaultRun.CONTENDING_WRITERS + " writers on " + aggregates + " aggregates, " + events
        + " events committed, " + verdict.rolledBack() + " rolled back: sequence gaps " + gaps + " (expected 0),"
        + " aggregates not starting at 1 " + badStart + ", counters not at the last sequence " + counterOff
        + "; write latency not measured", ok);
  }

  /** C2: the outage spent no attempt: nothing FAILED, no row with an attempt. */
  private static RowFigures longOutage(FaultRun run, FaultVerdict verdict) {
    List<Observation.Outage> outages = run.observations(Observation.Outage.class);
    long attempted = count(run.store().dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE attempts > 0");
    long waves = 0;
    for (ChildJvm relay : run.relays()) {
      waves += figure(relay.lastLine(RelayMain.FINAL), "outages");
    }
    long down = outages.stream().mapToLong(Observation.Outage::downMs).min().orElse(0);
    long backlog = outages.stream().mapToLong(Observation.Outage::backlog).min().orElse(0);
    boolean ok = !outages.isEmpty() && verdict.failed() == 0 && attempted == 0 && waves > 0 && backlog > 0;
    return new RowFigures("broker down " + down / 1000 + " s (" + outages.size() + "x), relay maxAttempts "
        + run.scenario().relayMaxAttempts() + ": failed=" + verdict.failed() + " (expected 0), rows with attempts > 0: "
        + attempted + " (expected 0), pending at the broker's restart: " + backlog + ", relay waves that met the"
        + " outage: " + waves, ok);
  }

  /**
   * C10: a backlog built during a long outage drains after the broker's restart, in order (an
   * invariant), without FAILED rows, with the relay's memory bounded by its heap (256 MiB).
   */
  private static RowFigures backlogCatchUp(FaultRun run, FaultVerdict verdict) {
    List<Observation.Outage> outages = run.observations(Observation.Outage.class);
    if (outages.isEmpty()) {
      return new RowFigures("the outage was not played", false);
    }
    Observation.Outage o = outages.get(0);
    DataSource ds = run.store().dataSource();
    long caughtUp = count(ds, "SELECT coalesce((extract(epoch FROM max(published_at)) * 1000)::bigint, 0)"
        + " FROM twinbox_outbox WHERE created_at <= to_timestamp(" + o.restartedAtMillis() / 1000.0 + ")");
    long catchUpMs = Math.max(1, caughtUp - o.restartedAtMillis());
    long rssMb = run.relayPeakRssKb() / 1024;
    long attempted = count(ds, "SELECT count(*) FROM twinbox_outbox WHERE attempts > 0");
    boolean ok = o.backlog() > 0 && verdict.failed() == 0 && attempted == 0 && rssMb > 0 && rssMb <= 512;
    return new RowFigures("broker down " + o.downMs() / 1000 + " s, " + o.backlog() + " events pending at its restart,"
        + " published " + catchUpMs + " ms after it (" + o.backlog() * 1000 / catchUpMs + " events/s); relay peak RSS "
        + rssMb + " MiB (expected <= 512, heap 256 MiB); failed=" + verdict.failed() + ", rows with attempts > 0: "
        + attempted, ok);
  }

  /** C5: each refused event FAILED at its first attempt with a reason; its aggregate held; others flowing. */
  private static RowFigures permanentRejection(FaultRun run, FaultVerdict verdict) {
    List<Observation.Rejection> all = run.observations(Observation.Rejection.class);
    int failedAtOnce = 0;
    int held = 0;
    int heldPending = 0;
    int heldAcked = 0;
    int probes = 0;
    int probesPublished = 0;
    int resolved = 0;
    long maxMsToFailed = 0;
    for (Observation.Rejection r : all) {
      if ("FAILED".equals(r.status()) && r.attempts() == 1 && r.reason() != null && !r.reason().isBlank()) {
        failedAtOnce++;
      }
      held += r.held();
      heldPending += r.heldPending();
      heldAcked += r.heldAcked();
      probes += r.probes();
      probesPublished += r.probesPublished();
      resolved += r.resolved() ? 1 : 0;
      maxMsToFailed = Math.max(maxMsToFailed, r.msToFailed());
    }
    boolean ok = !all.isEmpty() && failedAtOnce == all.size() && held >= all.size() && heldPending == held
        && heldAcked == 0 && probesPublished == probes && resolved == all.size() && verdict.failed() == 0;
    String reason = all.isEmpty() || all.get(0).reason() == null ? "none" : all.get(0).reason();
    return new RowFigures("refused " + all.size() + ": FAILED at the first attempt " + failedAtOnce + "/" + all.size()
        + " (attempts " + all.stream().map(r -> Integer.toString(r.attempts())).collect(Collectors.joining(","))
        + ", at most " + maxMsToFailed + " ms after commit; reason \"" + clip(reason, 120) + "\"); later events of"
        + " their aggregates held " + heldPending + "/" + held + " pending, " + heldAcked + " published before"
        + " resolution (expected 0); other aggregates' events published meanwhile " + probesPublished + "/" + probes
        + "; resolved (limit raised, retried by admin) " + resolved + "/" + all.size() + "; failed after the drain "
        + verdict.failed(), ok);
  }

  /**
   * D2, forced: each halt came right after a commit that applied effects, and the broker's
   * redeliveries of those messages were skipped by the inbox (no duplicate effect: an invariant).
   */
  private static RowFigures haltAfterCommit(FaultRun run, FaultVerdict verdict) {
    int halts = 0;
    for (ChildJvm consumer : run.consumers()) {
      halts += consumer.count(ConsumerMain.HALTED_AFTER_COMMIT);
    }
    long skipped = lastOfEachStart(run, "duplicates");
    int played = run.faultsPlayed(FaultKind.CONSUMER_HALT_COMMITTED);
    boolean ok = played > 0 && halts == played && skipped >= halts;
    return new RowFigures("consumers halted right after a commit that applied effects " + halts + " (of " + played
        + " played), redeliveries the inbox skipped as duplicates " + skipped + " (expected >= the halts; the"
        + " consumers' STATS, a lower bound: up to 1 s before each halt is not printed)", ok);
  }

  /** {@code name=<n>} of a consumer's {@code Stats[...]} line; 0 when absent. */
  private static long stat(String line, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b" + name + "=(\\d+)").matcher(line);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /**
   * D5: each poison id's handler ran exactly maxAttempts times and it was parked once with that
   * count; other messages were applied while poison was being retried.
   */
  private static RowFigures handlerAlwaysThrows(FaultRun run, FaultVerdict verdict) {
    List<UUID> poison = run.observations(Observation.Poison.class).stream().map(Observation.Poison::id).toList();
    Map<UUID, List<Long>> runs = handlerRuns(run);
    Map<UUID, List<Integer>> parked = parkedAttempts(run.consumerDataSource());
    int max = ConsumerMain.MAX_ATTEMPTS;
    int exactRuns = 0;
    int exactParked = 0;
    long others = 0;
    long minOthers = Long.MAX_VALUE;
    for (UUID id : poison) {
      List<Long> times = runs.getOrDefault(id, List.of());
      exactRuns += times.size() == max ? 1 : 0;
      List<Integer> attempts = parked.getOrDefault(id, List.of());
      exactParked += attempts.size() == 1 && attempts.get(0) == max ? 1 : 0;
      if (!times.isEmpty()) {
        long applied = effectsBetween(run.consumerDataSource(), times.get(0), times.get(times.size() - 1));
        others += applied;
        minOthers = Math.min(minOthers, applied);
      }
    }
    boolean ok = poison.size() > 0 && exactRuns == poison.size() && exactParked == poison.size()
        && verdict.parked() == poison.size() && others > 0;
    return new RowFigures("poison " + poison.size() + " (handler always throws), consumer maxAttempts " + max
        + ": handler ran exactly " + max + " times " + exactRuns + "/" + poison.size() + " (runs per id "
        + runCounts(poison, runs) + "); parked once with attempts=" + max + " " + exactParked + "/" + poison.size()
        + "; parked in all " + verdict.parked() + " (expected " + poison.size() + "); other messages applied while"
        + " poison was retried " + others + " (fewest in one poison's retry window "
        + (minOthers == Long.MAX_VALUE ? 0 : minOthers) + ")", ok);
  }

  /** D6: each halting id was parked after at most maxAttempts handler runs (crashes). */
  private static RowFigures handlerHaltsTheJvm(FaultRun run, FaultVerdict verdict) {
    List<Observation.Halts> halts = run.observations(Observation.Halts.class);
    Map<UUID, List<Long>> runs = handlerRuns(run);
    Map<UUID, List<Integer>> parked = parkedAttempts(run.consumerDataSource());
    int max = ConsumerMain.MAX_ATTEMPTS;
    int bounded = 0;
    int parkedOnce = 0;
    List<String> each = new ArrayList<>();
    for (Observation.Halts h : halts) {
      int n = runs.getOrDefault(h.id(), List.of()).size();
      List<Integer> attempts = parked.getOrDefault(h.id(), List.of());
      bounded += n >= 1 && n <= max && h.restarts() <= max ? 1 : 0;
      parkedOnce += attempts.size() == 1 ? 1 : 0;
      each.add(n + " runs/" + h.restarts() + " restarts/attempts " + attempts + "/" + h.ms() / 1000 + " s");
    }
    boolean ok = !halts.isEmpty() && bounded == halts.size() && parkedOnce == halts.size()
        && verdict.parked() == halts.size();
    return new RowFigures("halting ids " + halts.size() + ", consumer maxAttempts " + max + ": parked once "
        + parkedOnce + "/" + halts.size() + ", handler runs and consumer restarts <= " + max + " " + bounded + "/"
        + halts.size() + " (" + String.join("; ", each) + "); parked in all " + verdict.parked(), ok);
  }

  /**
   * D7: each hanging event was applied exactly once although the broker redelivered while its
   * first run hung (the consumers counted redeliveries).
   */
  private static RowFigures hangingHandler(FaultRun run, FaultVerdict verdict) {
    List<UUID> hangs = run.observations(Observation.Hang.class).stream().map(Observation.Hang::id).toList();
    Map<UUID, List<Long>> runs = handlerRuns(run);
    int appliedOnce = 0;
    long slowest = 0;
    for (UUID id : hangs) {
      appliedOnce += count(run.consumerDataSource(), "SELECT count(*) FROM effect WHERE n = 1 AND message_id = '"
          + id + "'") == 1 ? 1 : 0;
      List<Long> times = runs.getOrDefault(id, List.of());
      if (!times.isEmpty()) {
        long applied = count(run.consumerDataSource(), "SELECT coalesce((extract(epoch FROM max(applied_at)) * 1000)"
            + "::bigint, 0) FROM effect WHERE message_id = '" + id + "'");
        slowest = Math.max(slowest, applied - times.get(0));
      }
    }
    long redelivered = lastOfEachStart(run, "redelivered");
    boolean ok = !hangs.isEmpty() && appliedOnce == hangs.size() && redelivered > 0;
    return new RowFigures("hanging handlers " + hangs.size() + " (" + ConsumerMain.HANG_MILLIS / 1000 + " s on the"
        + " first run): applied exactly once " + appliedOnce + "/" + hangs.size() + ", handler runs per id "
        + runCounts(hangs, runs) + ", messages the broker redelivered " + redelivered + " (expected > 0), longest"
        + " from the first run to the applied effect " + slowest + " ms", ok);
  }

  /** A consumer stat summed over every start of every consumer (the last STATS line of each start). */
  private static long lastOfEachStart(FaultRun run, String name) {
    long sum = 0;
    for (ChildJvm consumer : run.consumers()) {
      long lastOfStart = 0;
      for (String line : consumer.lines()) {
        if (line.startsWith(ConsumerMain.STARTED)) {
          sum += lastOfStart;
          lastOfStart = 0;
        } else if (line.startsWith(ConsumerMain.STATS)) {
          lastOfStart = stat(line, name);
        }
      }
      sum += lastOfStart;
    }
    return sum;
  }

  /** D8: serialization failures and deadlocks happened, were retried without an attempt, nothing parked. */
  private static RowFigures serializationFailures(FaultRun run, FaultVerdict verdict) {
    long serialization = 0;
    long deadlocks = 0;
    for (ChildJvm consumer : run.consumers()) {
      for (String line : consumer.lines()) {
        if (line.contains("without using an attempt")) {
          // The test's own tally of the retries the consumers logged: by the SQLSTATE the library
          // quotes, else by PostgreSQL's English text of 40001 and 40P01 (the driver's exception).
          serialization += line.contains("SQLSTATE 40001") || line.contains("could not serialize access") ? 1 : 0;
          deadlocks += line.contains("SQLSTATE 40P01") || line.contains("deadlock detected") ? 1 : 0;
        }
      }
    }
    DataSource ds = run.consumerDataSource();
    long attempts = count(ds, "SELECT count(*) FROM twinbox_inbox_attempt");
    long bumps = count(ds, "SELECT coalesce(sum(n), 0) FROM hot");
    long effects = count(ds, "SELECT coalesce(sum(n), 0) FROM effect");
    boolean ok = serialization + deadlocks > 0 && attempts == 0 && verdict.parked() == 0 && bumps == effects;
    return new RowFigures("SERIALIZABLE consumers on " + FaultRun.HOT_ROWS + " hot rows: transactions retried after"
        + " a serialization failure " + serialization + ", after a deadlock " + deadlocks + " (expected > 0 in all);"
        + " attempts charged " + attempts + " (expected 0); parked " + verdict.parked() + " (expected 0); hot-row"
        + " bumps " + bumps + " = effects " + effects, ok);
  }

  // ---- evidence ----

  /** Every run of a poison handler, per id: the consumers' journals ({@code <id> <epoch ms>} lines). */
  static Map<UUID, List<Long>> handlerRuns(FaultRun run) {
    Map<UUID, List<Long>> runs = new HashMap<>();
    for (Path journal : run.handlerJournals()) {
      if (!Files.exists(journal)) {
        continue;
      }
      try {
        for (String line : Files.readAllLines(journal)) {
          String[] p = line.trim().split(" ");
          if (p.length == 2) {
            runs.computeIfAbsent(UUID.fromString(p[0]), k -> new ArrayList<>()).add(Long.parseLong(p[1]));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    runs.values().forEach(l -> l.sort(null));
    return runs;
  }

  private static String runCounts(List<UUID> ids, Map<UUID, List<Long>> runs) {
    Map<Integer, Long> histogram = ids.stream().collect(Collectors.groupingBy(
        id -> runs.getOrDefault(id, List.of()).size(), java.util.TreeMap::new, Collectors.counting()));
    return histogram.entrySet().stream().map(e -> e.getKey() + "x" + e.getValue()).collect(Collectors.joining(","));
  }

  /** The attempts of each parked row, per message id (a message parked twice has two). */
  private static Map<UUID, List<Integer>> parkedAttempts(DataSource ds) {
    Map<UUID, List<Integer>> out = new HashMap<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT message_id, attempts FROM twinbox_inbox_parked")) {
      while (rs.next()) {
        try {
          out.computeIfAbsent(UUID.fromString(rs.getString(1)), k -> new ArrayList<>()).add(rs.getInt(2));
        } catch (IllegalArgumentException foreign) {
          // a parked record that was not a Twinbox event
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static long effectsBetween(DataSource ds, long fromMs, long toMs) {
    return count(ds, "SELECT count(*) FROM effect WHERE applied_at BETWEEN to_timestamp(" + fromMs / 1000.0
        + ") AND to_timestamp(" + toMs / 1000.0 + ")");
  }

  /** {@code name=<n>} of a relay's stats line; 0 when absent. */
  static long figure(String line, String name) {
    if (line == null) {
      return 0;
    }
    for (String kv : line.split(" ")) {
      if (kv.startsWith(name + "=")) {
        return Long.parseLong(kv.substring(name.length() + 1));
      }
    }
    return 0;
  }

  static long count(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static String clip(String s, int max) {
    String one = s.replace('\n', ' ').replace('|', '/');
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }
}
