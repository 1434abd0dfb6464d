package io.twinbox.bench.growth;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.CompletionMode;
import io.twinbox.Retention;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Plots;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code growth} (issue 9, scenario 5): does the relay slow down after months of traffic? On one
 * fresh PostgreSQL database (dropped at the end) and one Kafka broker, the same drain of
 * {@code --events} pending events is measured on an empty outbox (the baseline, both completion
 * modes) and behind {@code --rows} events of history: MARK mode with the history kept as PUBLISHED
 * (vacuumed), MARK mode while {@link Retention} purges that history, and DELETE mode right after
 * the history was deleted (dead rows, autovacuum held off) and again after VACUUM. Before each
 * drain: EXPLAIN (ANALYZE, BUFFERS) of the relay's claim statement and timed probe claims.
 */
@Command(name = "growth", mixinStandardHelpOptions = true,
    description = "Relay drain rate and claim time after millions of published rows (bloat), with and without retention.")
public final class GrowthCommand implements Callable<Integer> {
  static final String SCENARIO = "growth";

  @Option(names = "--results", defaultValue = "results/growth",
      description = "Directory for results.jsonl and the plots (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(names = "--cases", split = ",", defaultValue = "baseline,mark,retention,delete",
      description = "baseline: empty outbox, DELETE and MARK, first and again last; mark: MARK behind --rows PUBLISHED rows; retention: "
          + "MARK while Retention purges them (runs after mark, fills the history itself otherwise); delete: DELETE "
          + "after --rows rows were inserted and deleted, before and after VACUUM (default: ${DEFAULT-VALUE}).")
  List<String> cases;

  @Option(names = "--rows", defaultValue = "10000000", description = "History rows (default: ${DEFAULT-VALUE}).")
  long rows;

  @Option(names = "--chunk", defaultValue = "1000000", description = "History rows per insert transaction (default: ${DEFAULT-VALUE}).")
  long chunk;

  @Option(names = "--events", defaultValue = "200000", description = "Pending events per drain (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--aggregates", defaultValue = "10000", description = "Distinct aggregates (default: ${DEFAULT-VALUE}).")
  int aggregates;

  @Option(names = "--ids", defaultValue = "TIME_ORDERED",
      description = "How history and pending ids are made: TIME_ORDERED (UUIDv7, as Twinbox's writers make them) or "
          + "RANDOM (UUIDv4, as runs before 2026-12-02 made them) (default: ${DEFAULT-VALUE}).")
  History.Ids ids;

  @Option(names = "--partitioned",
      description = "Migrate the time-partitioned outbox (daily partitions, those of the history's days made first).")
  boolean partitioned;

  @Option(names = "--workers", defaultValue = "2", description = "Relay workers (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--batch", defaultValue = "500", description = "Relay batch size (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--probes", defaultValue = "30", description = "Timed probe claims before each drain (default: ${DEFAULT-VALUE}).")
  int probes;

  @Option(names = "--retention-batch", defaultValue = "500",
      description = "Retention.batchSize (the library's default: ${DEFAULT-VALUE}).")
  int retentionBatch;

  @Option(names = "--retention-age-days", defaultValue = "30",
      description = "Retention age; the history is 35–120 days old (default: ${DEFAULT-VALUE}).")
  int retentionAgeDays;

  @Option(names = "--purge-timeout", defaultValue = "900",
      description = "Longest wait for the purge to finish after the drain, seconds; then it is stopped and its "
          + "rate reported (default: ${DEFAULT-VALUE}).")
  int purgeTimeout;

  @Option(names = "--timeout", defaultValue = "300", description = "Longest drain, seconds (default: ${DEFAULT-VALUE}).")
  int timeout;

  @Option(names = "--replot", split = ",",
      description = "Measure nothing: print the tables of these run ids from <results>/results.jsonl and draw one "
          + "plot of them together (drains of the same case name in several runs are averaged).")
  List<String> replot;

  private Report report;
  @Option(names = "--autovacuum",
      description = "on or off: run on a private PostgreSQL cluster of this machine's binaries with autovacuum so set "
          + "(shared_buffers 128MB, max_wal_size 1GB, fsync on, as the shared server); default: the shared server, "
          + "whose autovacuum is off.")
  String autovacuum;

  private PostgresDatabase db;
  private KafkaBroker broker;
  private int topicNo;

  @Override
  public Integer call() throws Exception {
    if (replot != null && !replot.isEmpty()) {
      return replot();
    }
    report = new Report(results);
    if (autovacuum == null) {
      try (PostgresDatabase database = PostgresDatabase.create()) {
        return run(database);
      }
    }
    if (!autovacuum.equals("on") && !autovacuum.equals("off")) {
      throw new IllegalArgumentException("--autovacuum: on or off, not " + autovacuum);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("autovacuum", autovacuum);
    settings.put("shared_buffers", "128MB");
    settings.put("max_wal_size", "1GB");
    settings.put("fsync", "on");
    settings.put("max_connections", "100");
    try (PrivatePostgresCluster cluster = PrivatePostgresCluster.builder().settings(settings).start();
        PostgresDatabase database = PostgresDatabase.createOn("127.0.0.1", cluster.port(), "postgres", "")) {
      System.out.println(cluster + "; " + settings);
      return run(database);
    }
  }

  private int run(PostgresDatabase database) throws Exception {
    try {
      db = database;
      (partitioned ? JdbcStore.builder(db.dataSource()).partitionedOutbox() : JdbcStore.builder(db.dataSource()))
          .build().migrate();
      if (partitioned) {
        History.pastPartitions(db.dataSource(), 122);
        if (cases.contains("delete")) {
          throw new IllegalArgumentException("--cases delete does not apply with --partitioned: history leaves a "
              + "partitioned outbox by dropped partitions, not by deleted rows");
        }
      }
      report.machine(Machine.describe(db.dataSource()));
      System.out.println("run " + report.runId() + " on " + report.machine());
      System.out.println("database " + db.name() + ", load average " + Report.load(Machine.load1()));
      DataSource admin = db.dataSource();
      boolean historyPublished = false;
      warmup(admin);
      if (cases.contains("baseline")) {
        baseline(admin, "");
      }
      if (cases.contains("mark") || cases.contains("retention")) {
        History.run(admin, "TRUNCATE twinbox_outbox");
        long t0 = System.nanoTime();
        History.fill(admin, rows, chunk, aggregates, History.Status.PUBLISHED, ids);
        double fill = (System.nanoTime() - t0) / 1e9;
        double vacuum = History.timed(admin, "VACUUM ANALYZE twinbox_outbox");
        historyPublished = true;
        if (cases.contains("mark")) {
          measure("mark-" + label(rows) + "-published", CompletionMode.MARK, rows,
              Map.of("history_fill_s", Math.round(fill), "vacuum_s", vacuum), null);
        }
      }
      if (cases.contains("retention") && historyPublished) {
        retention(admin);
      }
      if (cases.contains("delete")) {
        History.run(admin, "TRUNCATE twinbox_outbox");
        History.autovacuum(admin, false);
        long t0 = System.nanoTime();
        History.fill(admin, rows, chunk, aggregates, History.Status.PENDING, ids);
        double fill = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        long deleted = History.deleteAll(admin, chunk);
        double delete = (System.nanoTime() - t0) / 1e9;
        measure("delete-" + label(rows) + "-dead", CompletionMode.DELETE, rows,
            Map.of("history_fill_s", Math.round(fill), "delete_s", Math.round(delete), "deleted", deleted), null);
        double vacuum = History.timed(admin, "VACUUM ANALYZE twinbox_outbox");
        History.autovacuum(admin, true);
        measure("delete-" + label(rows) + "-vacuumed", CompletionMode.DELETE, rows, Map.of("vacuum_s", vacuum), null);
      }
      if (cases.contains("baseline")) {
        baseline(admin, "-end");
      }
      History.run(admin, "TRUNCATE twinbox_outbox");
    } finally {
      if (broker != null) {
        broker.close();
      }
    }
    Report.table("Growth: drain " + events + " events behind history (events/s; claim ms; ratios vs the empty "
        + "outbox of the same completion mode)", table(report.results()));
    for (Path p : plot(report.results(), report.dir())) {
      System.out.println("plot: " + p);
    }
    return 0;
  }

  /** The empty-outbox drains of both completion modes; measured first and again last ({@code -end}). */
  private void baseline(DataSource admin, String suffix) throws Exception {
    for (CompletionMode mode : List.of(CompletionMode.DELETE, CompletionMode.MARK)) {
      History.run(admin, "TRUNCATE twinbox_outbox");
      History.run(admin, "VACUUM ANALYZE twinbox_outbox");
      measure("empty-" + mode.name().toLowerCase(Locale.ROOT) + suffix, mode, 0, Map.of(), null);
    }
  }

  /** An unrecorded drain first: starts the broker, warms this JVM's JIT and the relay's paths. */
  private void warmup(DataSource admin) throws Exception {
    int n = Math.min(events, 20_000);
    PendingEvents.write(admin, n, aggregates, ids);
    String topic = "bench-growth-warmup-" + report.runId();
    Topics.createWarm(broker(), topic, partitions);
    Map<String, Object> m = GrowthDrain.run(db, broker, topic, n, CompletionMode.DELETE,
        new GrowthDrain.Settings(workers, batch, Duration.ofSeconds(timeout)));
    System.out.printf("  warm-up: %,d events, %s events/s (not recorded)%n", n, m.get("events_per_s"));
    History.run(admin, "TRUNCATE twinbox_outbox");
  }

  @SuppressWarnings("unchecked")
  private int replot() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    List<Result> all = new ArrayList<>();
    for (String run : replot) {
      List<Result> runResults = new ArrayList<>();
      for (String line : java.nio.file.Files.readAllLines(results.resolve("results.jsonl"))) {
        if (!line.isBlank()) {
          Map<String, Object> l = json.readValue(line, Map.class);
          if (run.equals(l.get("run")) && SCENARIO.equals(l.get("scenario"))) {
            runResults.add(Result.fromJson(l));
          }
        }
      }
      Report.table("Growth, run " + run, table(runResults));
      all.addAll(runResults);
    }
    for (Path p : plot(all, results)) {
      System.out.println("plot: " + p);
    }
    return 0;
  }

  /** MARK drain while Retention purges the PUBLISHED history; then waits for the purge and drains once more. */
  private void retention(DataSource admin) throws Exception {
    Duration age = Duration.ofDays(retentionAgeDays);
    String purgePlan = ClaimPlan.explainPurge(admin, age, retentionBatch);
    System.out.println("    purge plan (before):\n" + indent(purgePlan));
    try (HikariDataSource pool = Pools.create(db, "growth-retention", 2, true)) {
      PurgeMeter meter = new PurgeMeter(JdbcStore.builder(pool).build());
      Retention retention = Retention.builder().outbox(meter, age).batchSize(retentionBatch).build();
      long[] purgeEnd = {0};
      Throwable[] failure = {null};
      long purgeStart = System.nanoTime();
      Thread purger = new Thread(() -> {
        try {
          retention.runOnce();
        } catch (Throwable t) {
          failure[0] = t;
        } finally {
          purgeEnd[0] = System.nanoTime();
        }
      }, "growth-retention");
      Result during = measure("retention-" + label(rows) + "-purging", CompletionMode.MARK, rows,
          Map.of("retention_batch", retentionBatch, "retention_age_days", retentionAgeDays), purger);
      long atDrainEnd = meter.rows();
      during.metric("purged_by_drain_end", atDrainEnd);
      long deadline = System.nanoTime() + Duration.ofSeconds(purgeTimeout).toNanos();
      long lastPrint = System.nanoTime();
      while (purger.isAlive() && System.nanoTime() < deadline) {
        purger.join(1000);
        if (System.nanoTime() - lastPrint > 30e9) {
          System.out.printf("    ... purged %,d rows after %.0f s (load %s)%n", meter.rows(),
              (System.nanoTime() - purgeStart) / 1e9, Report.load(Machine.load1()));
          lastPrint = System.nanoTime();
        }
      }
      boolean finished = !purger.isAlive();
      meter.stop();
      purger.join();
      double seconds = ((finished ? purgeEnd[0] : System.nanoTime()) - purgeStart) / 1e9;
      Result purge = new Result(SCENARIO, "retention-purge", Machine.load1());
      purge.param("history_rows", rows).param("retention_batch", retentionBatch)
          .param("retention_age_days", retentionAgeDays);
      purge.metric("finished", finished).metric("purged_rows", meter.rows()).metric("batches", meter.batches())
          .metric("seconds", Math.round(seconds * 10) / 10.0)
          .metric("rows_per_s", Math.round(meter.rows() / seconds))
          .metric("batch_ms_first_10pct", meter.meanBatchMs(0, 0.1))
          .metric("batch_ms_last_10pct", meter.meanBatchMs(0.9, 1.0))
          .metric("projected_total_s", Math.round(rows / (meter.rows() / seconds)))
          .metric("purge_plan_before", purgePlan)
          .metric("failure", failure[0] == null ? "" : String.valueOf(failure[0]));
      purge.metric("purge_plan_after", ClaimPlan.explainPurge(admin, age, retentionBatch));
      purge.metrics(History.shape(admin));
      report.add(purge);
      System.out.printf("  retention purge: %,d rows in %.0f s (%,.0f rows/s, %s); batch ms first 10%% %.1f, last 10%% %.1f%n",
          meter.rows(), seconds, meter.rows() / seconds, finished ? "finished" : "stopped at the timeout",
          meter.meanBatchMs(0, 0.1), meter.meanBatchMs(0.9, 1.0));
      if (failure[0] != null) {
        System.out.println("  retention failed: " + failure[0]);
      }
    }
    measure("mark-after-purge", CompletionMode.MARK, rows, Map.of("note", "history purged, not vacuumed"), null);
  }

  /**
   * Writes the pending events, takes the table's shape and the claim plan, then drains (with
   * {@code alongside} started just before the relay, if given).
   */
  private Result measure(String name, CompletionMode mode, long history, Map<String, Object> setup, Thread alongside)
      throws Exception {
    DataSource admin = db.dataSource();
    System.out.printf("%n  case %s (%s, %,d history rows)%n", name, mode, history);
    double write = PendingEvents.write(admin, events, aggregates, ids);
    long pending = PendingEvents.pending(admin);
    Map<String, Object> shape = History.shape(admin);
    System.out.printf("    wrote %,d pending events in %.1f s; %s%n", pending, write, shape);
    Map<String, Object> plan = ClaimPlan.measure(admin, batch, probes);
    System.out.printf("    claim EXPLAIN %.1f ms (buffers hit %s, read %s); probe claims p50 %.1f / p99 %.1f ms%n",
        (Double) plan.get("explain_ms"), plan.get("explain_buffers_hit"), plan.get("explain_buffers_read"),
        (Double) plan.get("probe_p50_ms"), (Double) plan.get("probe_p99_ms"));
    System.out.println(indent((String) plan.get("claim_plan")));
    String topic = "bench-growth-" + report.runId() + "-" + (++topicNo);
    Topics.createWarm(broker(), topic, partitions);
    double load = Machine.load1();
    if (alongside != null) {
      alongside.start();
    }
    Map<String, Object> drain = GrowthDrain.run(db, broker, topic, pending, mode,
        new GrowthDrain.Settings(workers, batch, Duration.ofSeconds(timeout)));
    Result r = new Result(SCENARIO, name, load).loadAfter(Machine.load1());
    r.param("mode", mode.name()).param("history_rows", history).param("events", pending)
        .param("aggregates", aggregates).param("workers", workers).param("batch", batch)
        .param("topic_partitions", partitions).param("ids", ids.name())
        .param("partitioned", partitioned)
        .param("autovacuum", autovacuum == null ? "shared server (off)" : autovacuum);
    setup.forEach(r::param);
    r.metrics(drain).metrics(shape).metrics(plan).metric("pending_write_s", Math.round(write * 10) / 10.0);
    report.add(r);
    System.out.printf("    drained: %,d events/s (%.1f s, %d left); relay claims p50 %.1f / p99 %.1f / max %.1f ms; "
            + "load %s -> %s%n", ((Number) drain.get("events_per_s")).longValue(), (Double) drain.get("seconds"),
        drain.get("left_pending"), (Double) drain.get("claim_p50_ms"), (Double) drain.get("claim_p99_ms"),
        (Double) drain.get("claim_max_ms"), Report.load(load), Report.load(Machine.load1()));
    System.out.printf("    per row: claim %s us, completion %s us (completion p50 %.1f / p99 %.1f ms); WAL %s bytes/event, "
            + "%s full-page images%n", drain.get("claim_us_per_row"), drain.get("complete_us_per_row"),
        (Double) drain.get("complete_p50_ms"), (Double) drain.get("complete_p99_ms"), drain.get("wal_bytes_per_event"),
        drain.get("wal_fpi"));
    StringBuilder io = new StringBuilder("    buffers per event (read from outside shared buffers):");
    drain.forEach((k, v) -> {
      if (k.startsWith("blks_")) {
        String index = k.substring(5, k.length() - "_per_event".length());
        io.append(' ').append(index).append(' ').append(v).append(" (").append(drain.get("read_" + index)).append(')');
      }
    });
    System.out.println(io);
    return r;
  }

  /**
   * The Kafka broker, started at the first drain (after the history is written, which takes
   * minutes) and retried: on a busy machine its start-up can exceed the testkit's 90 s.
   */
  private KafkaBroker broker() {
    for (int attempt = 1; broker == null; attempt++) {
      try {
        broker = KafkaBroker.start();
        System.out.println("    Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
      } catch (IllegalStateException e) {
        if (attempt == 3) {
          throw e;
        }
        System.out.println("    Kafka broker not ready (attempt " + attempt + "), starting another: "
            + e.getMessage().lines().findFirst().orElse(""));
      }
    }
    return broker;
  }

  private static String label(long rows) {
    return rows % 1_000_000 == 0 ? rows / 1_000_000 + "M" : rows % 1000 == 0 ? rows / 1000 + "k" : String.valueOf(rows);
  }

  private static String indent(String text) {
    return "      " + text.replace("\n", "\n      ");
  }

  /**
   * One row per drain: its baseline is the mean of the empty-outbox drains (first and last) of the
   * same completion mode, same run.
   */
  static List<List<String>> table(List<Result> all) {
    List<Result> drains = all.stream().filter(r -> r.scenario().equals(SCENARIO) && r.param("mode") != null).toList();
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("case", "history rows", "dead tuples", "table MB", "events/s", "vs empty", "claim p50 ms",
        "claim p99 ms", "p99 vs empty", "claim max ms", "EXPLAIN ms", "buffers hit/read", "probe p50 ms", "load1"));
    for (Result r : drains) {
      List<Result> bases = drains.stream()
          .filter(b -> b.variant().startsWith("empty-") && b.param("mode").equals(r.param("mode"))).toList();
      Result base = bases.isEmpty() ? null : new Result(SCENARIO, "empty", -1)
          .metric("events_per_s", bases.stream().mapToDouble(b -> b.number("events_per_s")).average().orElse(Double.NaN))
          .metric("claim_p99_ms", bases.stream().mapToDouble(b -> b.number("claim_p99_ms")).average().orElse(Double.NaN));
      rows.add(List.of(r.variant(), Report.num(((Number) r.param("history_rows")).doubleValue()),
          Report.num(r.number("dead_tuples")), Report.num(r.number("table_mb")), Report.num(r.number("events_per_s")),
          base == null ? "–" : Report.ratio(r.number("events_per_s"), base.number("events_per_s")),
          Report.ms(r.number("claim_p50_ms")), Report.ms(r.number("claim_p99_ms")),
          base == null ? "–" : Report.ratio(r.number("claim_p99_ms"), base.number("claim_p99_ms")),
          Report.ms(r.number("claim_max_ms")), Report.ms(r.number("explain_ms")),
          Report.num(r.number("explain_buffers_hit")) + " / " + Report.num(r.number("explain_buffers_read")),
          Report.ms(r.number("probe_p50_ms")), Report.load(r.loadBeforeOrAfter())));
    }
    return rows;
  }

  /** Two bar charts: drain events/s and relay claim p99 per case. */
  static List<Path> plot(List<Result> all, Path dir) throws Exception {
    List<Path> out = new ArrayList<>();
    List<Result> drains = all.stream().filter(r -> r.scenario().equals(SCENARIO) && r.param("mode") != null).toList();
    Path a = Plots.bars(Plots.byVariant(drains, SCENARIO, "events_per_s", Result::variant), dir,
        "growth-drain.png", "Relay drain to Kafka behind outbox history (events/s, same run)", "events/s");
    Path b = Plots.bars(Plots.byVariant(drains, SCENARIO, "claim_p99_ms", Result::variant), dir,
        "growth-claim-p99.png", "Relay claim p99 behind outbox history (ms, same run)", "claim p99 (ms)");
    for (Path p : new Path[] {a, b}) {
      if (p != null) {
        out.add(p);
      }
    }
    return out;
  }
}
