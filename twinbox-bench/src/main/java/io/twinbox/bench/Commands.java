package io.twinbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import io.twinbox.Outbox;
import io.twinbox.bench.latency.LatencyBench;
import io.twinbox.bench.relay.Drainer;
import io.twinbox.bench.relay.RelayBench;
import io.twinbox.bench.relay.SqlDrainers;
import io.twinbox.bench.relay.TwinboxDrainer;
import io.twinbox.bench.write.WriteBench;
import io.twinbox.bench.write.WritePath;
import io.twinbox.bench.write.WritePaths;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The subcommands of {@link Bench}, and the scenario runs they share with {@code all}. */
final class Commands {
  private Commands() {}

  /** Options every scenario takes. */
  static final class Common {
    @Option(names = "--results", defaultValue = "results",
        description = "Directory for results.jsonl and the plots (default: ${DEFAULT-VALUE}, relative to the working directory).")
    Path results;

    @Option(names = "--quiet-below", defaultValue = "0",
        description = "Before each measurement, wait until other processes (and PostgreSQL) use at most this many "
            + "cores over 3 s; 0: don't wait (default: ${DEFAULT-VALUE}).")
    void quietBelow(double cores) {
      quietBelow = cores;
      Quiet.configure(quietBelow, quietMaxWait);
    }

    double quietBelow;

    @Option(names = "--quiet-max-wait", defaultValue = "180",
        description = "Longest wait for a quiet machine per measurement, seconds (default: ${DEFAULT-VALUE}).")
    void quietMaxWait(long seconds) {
      quietMaxWait = seconds;
      Quiet.configure(quietBelow, quietMaxWait);
    }

    long quietMaxWait = 180;
  }

  @Command(name = "write", mixinStandardHelpOptions = true,
      description = "Write overhead: committed tx/s of a business insert alone, + raw-SQL outbox rows, + Outbox.write.")
  static final class Write implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = {"-c", "--clients"}, split = ",", defaultValue = "1,4,16",
        description = "Client thread counts, each with a pool of that size (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = {"-s", "--seconds"}, defaultValue = "20", description = "Measured seconds per path (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = {"-w", "--warmup"}, defaultValue = "5", description = "Warm-up seconds per path (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--aggregates", defaultValue = "1000", description = "Distinct aggregates (default: ${DEFAULT-VALUE}).")
    int aggregates;

    @Option(names = "--slices", defaultValue = "4",
        description = "The measured seconds of each path are cut into this many slices, interleaved across paths in "
            + "ABBA order so that background load hits every path alike (default: ${DEFAULT-VALUE}).")
    int slices;

    @Option(names = "--settle", defaultValue = "1",
        description = "Unmeasured seconds at the start of each slice (default: ${DEFAULT-VALUE}).")
    int settle;

    @Option(names = "--paths", split = ",",
        defaultValue = "business-only,raw-sql-plain,raw-sql,twinbox,raw-sql-notify,twinbox-notify",
        description = "Write paths to measure (default: ${DEFAULT-VALUE}); also twinbox-partitioned (the partitioned "
            + "outbox, in schema twinbox_part) and twinbox-sp (its plain twin, with the same SET LOCAL search_path).")
    List<String> paths;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      runWrite(report, this);
      Plots.writeBars(report.results(), report.dir());
      return 0;
    }
  }

  @Command(name = "relay", mixinStandardHelpOptions = true,
      description = "Relay throughput: drain pre-filled pending events; raw-SQL limit, bare Kafka loop, Twinbox relay.")
  static final class RelayThroughput implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--events", defaultValue = "200000", description = "Pending events per drain (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--aggregates", defaultValue = "10000", description = "Distinct aggregates (default: ${DEFAULT-VALUE}).")
    int aggregates;

    @Option(names = "--batch", defaultValue = "500", description = "Rows claimed at once (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--workers", split = ",", defaultValue = "1,2,4",
        description = "Twinbox relay worker counts (default: ${DEFAULT-VALUE}).")
    List<Integer> workers;

    @Option(names = "--jit-off-workers", split = ",", defaultValue = "0",
        description = "Twinbox relay worker counts to run again with `SET jit = off` on the relay's connections; "
            + "0 to skip (default: ${DEFAULT-VALUE}).")
    List<Integer> jitOffWorkers;

    @Option(names = "--linger0-workers", split = ",", defaultValue = "2,4",
        description = "Twinbox relay worker counts to run again with the publisher's linger.ms=0; 0 to skip "
            + "(default: ${DEFAULT-VALUE}).")
    List<Integer> lingerWorkers;

    @Option(names = "--tuned-workers", split = ",", defaultValue = "0",
        description = "Twinbox relay worker counts to run with both jit=off and linger.ms=0; 0 to skip "
            + "(default: ${DEFAULT-VALUE}).")
    List<Integer> tunedWorkers;

    @Option(names = "--claimers", split = ",", defaultValue = "1,4",
        description = "Raw-SQL limit: claimer thread counts (default: ${DEFAULT-VALUE}).")
    List<Integer> claimers;

    @Option(names = "--bare-claimers", split = ",", defaultValue = "1",
        description = "Bare claim/send/delete loop with Kafka: thread counts; 0 to skip (default: ${DEFAULT-VALUE}).")
    List<Integer> bareClaimers;

    @Option(names = "--raw-synchronous-commit", defaultValue = "false",
        description = "synchronous_commit for the SQL loops (default off, like the library's completion: ${DEFAULT-VALUE}).")
    boolean rawSyncCommit;

    @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--sample-ms", defaultValue = "0",
        description = "Sample the relay threads' stacks every N ms (0: off) and report where they spend time.")
    long sampleMillis;

    @Option(names = "--rounds", defaultValue = "2",
        description = "Repetitions of the whole sequence, every other one in reverse order (ABBA) (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--warmup-events", defaultValue = "30000",
        description = "Events drained (unrecorded) by the relay and the bare loop before the measurements; 0: none "
            + "(default: ${DEFAULT-VALUE}).")
    int warmupEvents;

    @Option(names = "--timeout", defaultValue = "300", description = "Longest drain, seconds (default: ${DEFAULT-VALUE}).")
    int timeout;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      runRelay(report, this);
      Plots.relayBars(report.results(), report.dir());
      return 0;
    }
  }

  @Command(name = "latency", mixinStandardHelpOptions = true,
      description = "Commit→broker-ack and commit→consume latency at a steady event rate with a running relay.")
  static final class Latency implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--rate", defaultValue = "2000", description = "Events per second, all writers together (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--writers", defaultValue = "4", description = "Writer threads (default: ${DEFAULT-VALUE}).")
    int writers;

    @Option(names = {"-s", "--seconds"}, defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = {"-w", "--warmup"}, defaultValue = "5", description = "Warm-up seconds (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--aggregates", defaultValue = "1000", description = "Distinct aggregates (default: ${DEFAULT-VALUE}).")
    int aggregates;

    @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--variants", split = ",", defaultValue = "notify,no-notify,no-notify-fast",
        description = "notify: opt-in commit notifications on (NOTIFY trigger enabled, relay LISTENs, poll interval "
            + "100 ms); no-notify: the default relay (trigger disabled, adaptive polling, pollInterval 100 ms); "
            + "no-notify-fast: the same with pollInterval --poll-ms "
            + "(default: ${DEFAULT-VALUE}).")
    List<String> variants;

    @Option(names = "--poll-ms", defaultValue = "20",
        description = "Poll interval of the no-notify-fast variant, ms (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      runLatency(report, this);
      Plots.latencyCdf(report.results(), report.dir());
      return 0;
    }
  }

  @Command(name = "all", mixinStandardHelpOptions = true,
      description = "write, relay and latency with their defaults, one run id, then the plots.")
  static final class All implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--write-seconds", defaultValue = "20") int writeSeconds;
    @Option(names = "--write-slices", defaultValue = "4") int writeSlices;
    @Option(names = "--sample-ms", defaultValue = "0") long sampleMillis;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      Write w = new Write();
      w.clients = List.of(1, 4, 16);
      w.seconds = writeSeconds;
      w.warmup = 5;
      w.aggregates = 1000;
      w.slices = writeSlices;
      w.settle = 1;
      w.paths = List.of("business-only", "raw-sql-plain", "raw-sql", "twinbox", "raw-sql-notify", "twinbox-notify");
      runWrite(report, w);
      RelayThroughput r = new RelayThroughput();
      r.events = 200_000;
      r.aggregates = 10_000;
      r.batch = 500;
      r.workers = List.of(1, 2, 4);
      r.jitOffWorkers = List.of();
      r.lingerWorkers = List.of(2, 4);
      r.tunedWorkers = List.of();
      r.claimers = List.of(1, 4);
      r.bareClaimers = List.of(1);
      r.partitions = 8;
      r.sampleMillis = sampleMillis;
      r.timeout = 300;
      r.warmupEvents = 30_000;
      r.rounds = 2;
      runRelay(report, r);
      Latency l = new Latency();
      l.rate = 2000;
      l.writers = 4;
      l.seconds = 30;
      l.warmup = 5;
      l.aggregates = 1000;
      l.partitions = 8;
      l.variants = List.of("notify", "no-notify", "no-notify-fast");
      l.pollMillis = 20;
      runLatency(report, l);
      plotAll(report.results(), report.dir());
      return 0;
    }
  }

  @Command(name = "plot", mixinStandardHelpOptions = true,
      description = "Re-renders the plots from results.jsonl: for each scenario, its most recent run.")
  static final class Plot implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--run", description = "Use this run id instead of each scenario's latest.")
    String run;

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() throws Exception {
      ObjectMapper json = new ObjectMapper();
      List<Map<String, Object>> lines = new ArrayList<>();
      for (String line : Files.readAllLines(common.results.resolve("results.jsonl"), StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          lines.add(json.readValue(line, Map.class));
        }
      }
      Map<String, String> latestRun = new LinkedHashMap<>();
      for (Map<String, Object> l : lines) {
        latestRun.put((String) l.get("scenario"), (String) l.get("run"));
      }
      List<Result> chosen = new ArrayList<>();
      for (Map<String, Object> l : lines) {
        String want = run != null ? run : latestRun.get(l.get("scenario"));
        if (want.equals(l.get("run"))) {
          chosen.add(Result.fromJson(l));
        }
      }
      printTables(chosen);
      plotAll(chosen, common.results);
      return 0;
    }
  }

  // ---------------------------------------------------------------------------------------------

  static void plotAll(List<Result> results, Path dir) throws Exception {
    for (Path p : new Path[] {Plots.writeBars(results, dir), Plots.relayBars(results, dir),
        Plots.latencyCdf(results, dir)}) {
      if (p != null) {
        System.out.println("plot: " + p);
      }
    }
    IssueScenarios.Inbox.plot(results, dir);
    IssueScenarios.Brokers.plot(results, dir);
    IssueScenarios.MariaDb.plot(results, dir);
  }

  static void printTables(List<Result> results) {
    if (results.stream().anyMatch(r -> r.scenario().equals("write"))) {
      writeTable(results);
    }
    if (results.stream().anyMatch(r -> r.scenario().equals("relay"))) {
      Report.table("Relay throughput", RelayBench.table(results));
    }
    if (results.stream().anyMatch(r -> r.scenario().equals("latency"))) {
      Report.table("Latency (ms)", LatencyBench.table(results));
    }
    if (results.stream().anyMatch(r -> r.scenario().equals("inbox"))) {
      Report.table("Inbox (issue 3)", io.twinbox.bench.inbox.InboxBench.table(results, 50));
      Report.table("Inbox (issue 16): library vs the hand-written loop", io.twinbox.bench.inbox.InboxRatios.table(results, 50));
    }
    if (results.stream().anyMatch(r -> r.scenario().startsWith("brokers-"))) {
      Report.table("Brokers (issue 4)", io.twinbox.bench.brokers.BrokersBench.table(results));
    }
    if (results.stream().anyMatch(r -> r.scenario().startsWith("mariadb-"))) {
      Report.table("MariaDB write (issue 5)", IssueScenarios.MariaDb.writeTable(results));
      Report.table("MariaDB relay (issue 5)", io.twinbox.bench.mariadb.MariaDbBench.relayTable(results));
    }
  }

  private static PostgresDatabase database(Report report) {
    PostgresDatabase db = PostgresDatabase.create();
    JdbcStore.builder(db.dataSource()).build().migrate();
    if (report.machine().isEmpty()) {
      report.machine(Machine.describe(db.dataSource()));
    }
    System.out.println("run " + report.runId() + " on " + report.machine());
    System.out.println("database " + db.name() + ", load average " + Report.load(Machine.load1()));
    return db;
  }

  /** The write path on the partitioned outbox; choosing it adds {@code twinbox-sp}, its plain-table twin. */
  static final String PARTITIONED_PATH = "twinbox-partitioned";

  static void runWrite(Report report, Write o) throws Exception {
    try (PostgresDatabase db = database(report)) {
      Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
      Map<String, WritePath> all = new LinkedHashMap<>();
      for (WritePath p : List.of(WritePaths.businessOnly(), WritePaths.rawSqlPlain(), WritePaths.rawSql(),
          WritePaths.twinbox(outbox), WritePaths.rawSqlNotify(), WritePaths.twinboxNotify(outbox))) {
        all.put(p.name(), p);
      }
      boolean partitioned = o.paths.contains(PARTITIONED_PATH);
      HikariDataSource partSchema = null;
      if (partitioned) {
        // The partitioned outbox in a schema of its own, next to the plain one in public (issue 18).
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
          st.execute("CREATE SCHEMA IF NOT EXISTS twinbox_part");
        }
        partSchema = Pools.create(db, "bench-part-schema", 1, true, "SET search_path TO twinbox_part");
        JdbcStore partStore = JdbcStore.builder(partSchema).partitionedOutbox().build();
        partStore.migrate();
        all.put("twinbox-sp", WritePaths.inSchema("twinbox-sp", "public", outbox));
        all.put(PARTITIONED_PATH, WritePaths.inSchema(PARTITIONED_PATH, "twinbox_part, public",
            Outbox.builder(partStore).build()));
      }
      List<WritePath> paths = new ArrayList<>();
      for (String name : o.paths) {
        WritePath p = all.get(name);
        if (p == null) {
          throw new IllegalArgumentException("unknown write path " + name + "; known: " + all.keySet());
        }
        paths.add(p);
      }
      WriteBench bench = partitioned
          ? new WriteBench(db.dataSource(), List.of(WritePaths.ORDERS_DDL, "TRUNCATE orders, twinbox_outbox",
              "TRUNCATE twinbox_part.twinbox_outbox", "VACUUM ANALYZE twinbox_aggregate",
              "VACUUM ANALYZE twinbox_part.twinbox_aggregate", "CHECKPOINT"), "write")
          : new WriteBench(db.dataSource());
      for (int clients : o.clients) {
        Quiet.await(java.util.Set.of());
        try (HikariDataSource pool = Pools.create(db, "bench-writers-" + clients, clients, false)) {
          List<Result> results = bench.measure(paths, pool,
              new WriteBench.Settings(clients, o.warmup, o.seconds, o.slices, o.settle, o.aggregates));
          for (Result r : results) {
            report.add(r);
            System.out.printf("  write %-18s %2d clients: %,8.0f tx/s  slices %s  (mean %.2f ms, cpu other %.2f)%n",
                r.variant(), clients, r.number("tx_per_s"), r.metrics().get("slice_tx_per_s"), r.number("mean_tx_ms"),
                r.number("cpu_other"));
          }
        }
      }
      if (partSchema != null) {
        partSchema.close();
      }
    }
    writeTable(report.results());
  }

  static void writeTable(List<Result> results) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("path", "clients", "tx/s", "per slice", "mean ms", "vs raw-sql", "vs business-only", "cpu other"));
    List<Integer> clients = results.stream().filter(r -> r.scenario().equals("write"))
        .map(r -> ((Number) r.param("clients")).intValue()).distinct().sorted().toList();
    List<String> paths = results.stream().filter(r -> r.scenario().equals("write")).map(Result::variant).distinct().toList();
    for (int c : clients) {
      for (String p : paths) {
        rows.add(WriteBench.row(c, results, p));
      }
    }
    Report.table("Write overhead (committed transactions/s; ratios within the same client count)", rows);
  }

  static void runRelay(Report report, RelayThroughput o) throws Exception {
    try (PostgresDatabase db = database(report); KafkaBroker broker = KafkaBroker.start()) {
      System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
      RelayBench bench = new RelayBench(new Drainer.Context(db, db.dataSource(), broker, null, o.events,
          Duration.ofSeconds(o.timeout)), o.aggregates, o.partitions);
      List<Drainer> drainers = new ArrayList<>();
      for (int c : positive(o.claimers)) {
        drainers.add(SqlDrainers.rawSql(c, o.batch, o.rawSyncCommit));
      }
      for (int c : positive(o.bareClaimers)) {
        drainers.add(SqlDrainers.bareKafka(c, o.batch, o.rawSyncCommit));
      }
      for (int w : positive(o.workers)) {
        drainers.add(new TwinboxDrainer(w, o.batch, o.sampleMillis, TwinboxDrainer.Tuning.DEFAULT));
      }
      for (int w : positive(o.jitOffWorkers)) {
        drainers.add(new TwinboxDrainer(w, o.batch, o.sampleMillis, TwinboxDrainer.Tuning.JIT_OFF));
      }
      for (int w : positive(o.lingerWorkers)) {
        drainers.add(new TwinboxDrainer(w, o.batch, o.sampleMillis, TwinboxDrainer.Tuning.LINGER_0));
      }
      for (int w : positive(o.tunedWorkers)) {
        drainers.add(new TwinboxDrainer(w, o.batch, o.sampleMillis, TwinboxDrainer.Tuning.JIT_OFF_LINGER_0));
      }
      if (o.warmupEvents > 0) {
        bench.warmup(new TwinboxDrainer(2, o.batch, 0, TwinboxDrainer.Tuning.DEFAULT), o.warmupEvents);
        bench.warmup(SqlDrainers.bareKafka(1, o.batch, o.rawSyncCommit), o.warmupEvents);
      }
      for (int round = 0; round < o.rounds; round++) {
        List<Drainer> order = new ArrayList<>(drainers);
        if (round % 2 == 1) {
          java.util.Collections.reverse(order);
        }
        for (Drainer d : order) {
          Result r = bench.measure(d, report.runId());
          r.param("round", round + 1);
          report.add(r);
        }
      }
    }
    List<Result> relay = report.results().stream().filter(r -> r.scenario().equals("relay")).toList();
    Report.table("Relay throughput (" + o.events + " pending events, " + o.aggregates + " aggregates)",
        RelayBench.table(relay));
    for (Result r : relay) {
      if (r.metrics().containsKey("stack_samples")) {
        System.out.println("stack samples, " + r.variant() + " " + r.param("workers") + " workers: "
            + r.metrics().get("stack_samples"));
      }
    }
  }

  private static List<Integer> positive(List<Integer> counts) {
    return counts.stream().filter(c -> c > 0).toList();
  }

  static void runLatency(Report report, Latency o) throws Exception {
    try (PostgresDatabase db = database(report); KafkaBroker broker = KafkaBroker.start()) {
      System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
      LatencyBench bench = new LatencyBench(db, broker, report.runId());
      for (String v : o.variants) {
        LatencyBench.Variant variant = LatencyBench.Variant.of(v, o.pollMillis);
        Result r = bench.measure(variant, new LatencyBench.Settings(o.rate, o.writers, o.warmup, o.seconds,
            o.aggregates, o.partitions));
        report.add(r);
        System.out.printf("  latency %-9s: %,.0f events/s, consume p50 %.1f / p99 %.1f / max %.1f ms, ack p99 %.1f ms%n",
            v, r.number("achieved_rate"), r.number("consume_p50_ms"), r.number("consume_p99_ms"),
            r.number("consume_max_ms"), r.number("ack_p99_ms"));
      }
    }
    Report.table("Latency, target " + o.rate + " events/s (ms; the achieved rate is the events/s column)",
        LatencyBench.table(report.results()));
  }
}
