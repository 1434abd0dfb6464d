package io.twinbox.bench.peers.debezium;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Plots;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.latency.LatencyBench;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.bench.relay.Drainer;
import io.twinbox.bench.relay.RelayBench;
import io.twinbox.bench.relay.TwinboxDrainer;
import io.twinbox.bench.write.WriteBench;
import io.twinbox.bench.write.WritePath;
import io.twinbox.bench.write.WritePaths;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code debezium}: Twinbox against Debezium's outbox event router (issue 9), both on one private
 * PostgreSQL cluster with {@code wal_level=logical} started for the run (the testkit's {@link
 * PrivatePostgresCluster} with {@link #CLUSTER_SETTINGS})
 * and one Kafka broker: write overhead, relay throughput on a backlog, and commit-to-consume latency
 * at steady rates. Results go to {@code <results>/results.jsonl} (default {@code
 * results/debezium}) with the scenario names and metrics of the other commands, and the plots
 * beside it.
 */
@Command(name = "debezium", mixinStandardHelpOptions = true,
    description = "Twinbox against Debezium's outbox event router (embedded engine, pgoutput) on a private "
        + "wal_level=logical PostgreSQL cluster: write, relay, latency.")
public final class DebeziumCommand implements Callable<Integer> {
  /**
   * The private cluster's settings: what Debezium needs ({@code wal_level=logical}, slots and WAL
   * senders), the rest as on the shared server on 5432 ({@code fsync=on}, {@code autovacuum=off},
   * default {@code shared_buffers}), so that the figures stay comparable with the other sections of
   * BENCHMARKS.md.
   */
  static final Map<String, String> CLUSTER_SETTINGS = orderedSettings(
      "wal_level", "logical",
      "max_replication_slots", "8",
      "max_wal_senders", "8",
      "max_connections", "100",
      "fsync", "on",
      "autovacuum", "off",
      "max_wal_size", "1GB");

  /** {@link #CLUSTER_SETTINGS}, for the commands that measure on the same kind of cluster ({@code wal}). */
  public static Map<String, String> clusterSettings() {
    return CLUSTER_SETTINGS;
  }

  @Option(names = "--results", defaultValue = "results/debezium",
      description = "Directory for results.jsonl and the plots (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(names = "--scenarios", split = ",", defaultValue = "write,relay,latency",
      description = "Scenarios to run (default: ${DEFAULT-VALUE}).")
  List<String> scenarios;

  @Option(names = {"-c", "--clients"}, split = ",", defaultValue = "1,4,16",
      description = "write: client thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> clients;

  @Option(names = "--write-seconds", defaultValue = "8", description = "write: measured seconds per path (default: ${DEFAULT-VALUE}).")
  int writeSeconds;

  @Option(names = "--write-slices", defaultValue = "4", description = "write: ABBA slices (default: ${DEFAULT-VALUE}).")
  int writeSlices;

  @Option(names = "--events", defaultValue = "200000", description = "relay: pending events per drain (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--events-per-tx", defaultValue = "1",
      description = "relay: Debezium backlog events per transaction (default: ${DEFAULT-VALUE}, one per business tx).")
  int eventsPerTx;

  @Option(names = "--relay-timeout", defaultValue = "300",
      description = "relay: longest drain, seconds; a slower drainer is rated on what it drained (default: ${DEFAULT-VALUE}).")
  int relayTimeout;

  @Option(names = "--relay-rounds", defaultValue = "1",
      description = "relay: repetitions, every other one in reverse order (default: ${DEFAULT-VALUE}).")
  int relayRounds;

  @Option(names = "--twinbox-workers", defaultValue = "2", description = "relay: Twinbox relay workers (default: ${DEFAULT-VALUE}, the library's default).")
  int twinboxWorkers;

  @Option(names = "--rates", split = ",", defaultValue = "500,2000",
      description = "latency: events/s, all writers together (default: ${DEFAULT-VALUE}).")
  List<Integer> rates;

  @Option(names = "--writers", defaultValue = "4", description = "latency: writer threads (default: ${DEFAULT-VALUE}).")
  int writers;

  @Option(names = "--latency-seconds", defaultValue = "20", description = "latency: measured seconds (default: ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(names = "--fast-poll-ms", defaultValue = "10",
      description = "latency: poll.interval.ms of the tuned Debezium engine (default: ${DEFAULT-VALUE}; Debezium's default is 500).")
  long fastPollMillis;

  @Option(names = "--warmup", defaultValue = "3", description = "Warm-up seconds (write per path, latency) (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Override
  public Integer call() throws Exception {
    Report report = new Report(results);
    Quiet.configure(0, 0);
    try (PrivatePostgresCluster cluster = PrivatePostgresCluster.builder().settings(CLUSTER_SETTINGS).start()) {
      System.out.println(cluster + "; wal_level=logical, fsync=on, autovacuum=off");
      try (PostgresDatabase db = PostgresDatabase.createOn("127.0.0.1", cluster.port(), "postgres", "")) {
        JdbcStore.builder(db.dataSource()).build().migrate();
        Debezium.migrate(db.dataSource());
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
          st.execute(WritePaths.ORDERS_DDL);
        }
        report.machine(Machine.describe(db.dataSource()));
        System.out.println("run " + report.runId() + " on " + report.machine());
        System.out.println("database " + db.name() + ", load average " + Report.load(Machine.load1()));
        if (scenarios.contains("write")) {
          write(db, report);
        }
        if (scenarios.contains("relay") || scenarios.contains("latency")) {
          try (KafkaBroker broker = KafkaBroker.start()) {
            System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
            if (scenarios.contains("relay")) {
              relay(db, broker, report);
            }
            if (scenarios.contains("latency")) {
              latency(db, broker, report);
            }
          }
        }
      }
    }
    DebeziumTables.print(report.results());
    plot(report);
    return 0;
  }

  private void write(PostgresDatabase db, Report report) throws Exception {
    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    List<WritePath> paths = List.of(WritePaths.businessOnly(), WritePaths.twinbox(outbox),
        new DebeziumWritePath(Debezium.Writes.INSERT_DELETE), new DebeziumWritePath(Debezium.Writes.INSERT_ONLY));
    // WriteBench's reset, plus Debezium's outbox table. No slot exists during the write scenario:
    // neither relay runs while the writers are measured, as in the other write scenarios.
    WriteBench bench = new WriteBench(db.dataSource(), List.of(WritePaths.ORDERS_DDL,
        "TRUNCATE orders, twinbox_outbox, " + Debezium.TABLE, "VACUUM ANALYZE twinbox_aggregate", "CHECKPOINT"), "write");
    for (int c : clients) {
      try (HikariDataSource pool = Pools.create(db, "debezium-writers-" + c, c, false)) {
        for (Result r : bench.measure(paths, pool, new WriteBench.Settings(c, warmup, writeSeconds, writeSlices, 1, 1000))) {
          report.add(r);
          System.out.printf("  write %-18s %2d clients: %,8.0f tx/s  slices %s%n", r.variant(), c,
              r.number("tx_per_s"), r.metrics().get("slice_tx_per_s"));
        }
      }
    }
  }

  private void relay(PostgresDatabase db, KafkaBroker broker, Report report) throws Exception {
    RelayBench twinbox = new RelayBench(new Drainer.Context(db, db.dataSource(), broker, null, events,
        Duration.ofSeconds(relayTimeout)), 10_000, partitions);
    DebeziumRelay debezium = new DebeziumRelay(db, broker, report.runId());
    // Warm the JIT, the broker and the caches for both before anything is recorded.
    twinbox.warmup(new TwinboxDrainer(twinboxWorkers, 500, 0, TwinboxDrainer.Tuning.DEFAULT), 5_000);
    Result warm = debezium.measure(Debezium.Writes.INSERT_DELETE, Debezium.Setup.defaults(), 5_000, eventsPerTx,
        10_000, partitions, Duration.ofSeconds(120));
    System.out.printf("  warm-up: Debezium drained %,d events in %.1f s%n", 5_000, warm.number("seconds"));
    List<String> order = new ArrayList<>(List.of("twinbox", "debezium", "debezium-keep-rows"));
    for (int round = 1; round <= relayRounds; round++) {
      List<String> now = new ArrayList<>(order);
      if (round % 2 == 0) {
        Collections.reverse(now);
      }
      for (String contender : now) {
        Result r = switch (contender) {
          case "twinbox" -> twinbox.measure(new TwinboxDrainer(twinboxWorkers, 500, 0, TwinboxDrainer.Tuning.DEFAULT),
              report.runId());
          case "debezium" -> debezium.measure(Debezium.Writes.INSERT_DELETE, Debezium.Setup.defaults(), events,
              eventsPerTx, 10_000, partitions, Duration.ofSeconds(relayTimeout));
          default -> debezium.measure(Debezium.Writes.INSERT_ONLY, Debezium.Setup.defaults(), events, eventsPerTx,
              10_000, partitions, Duration.ofSeconds(relayTimeout));
        };
        r.param("round", round);
        report.add(r);
      }
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE twinbox_outbox");
    }
  }

  private void latency(PostgresDatabase db, KafkaBroker broker, Report report) throws Exception {
    LatencyBench twinbox = new LatencyBench(db, broker, report.runId());
    DebeziumLatency debezium = new DebeziumLatency(db, broker, report.runId());
    for (int rate : rates) {
      LatencyBench.Settings s = new LatencyBench.Settings(rate, writers, warmup, latencySeconds, 1000, partitions);
      PeerLatencyReport.Load l = new PeerLatencyReport.Load(rate, writers, warmup, latencySeconds, 1000, partitions);
      // Twinbox as it ships (no NOTIFY trigger, adaptive polling, 100 ms poll interval) and with its
      // opt-in commit notifications; Debezium with its defaults and with a short poll interval.
      print(add(report, twinbox.measure(new LatencyBench.Variant("twinbox", false, false, Duration.ofMillis(100)), s)));
      print(add(report, twinbox.measure(new LatencyBench.Variant("twinbox-notify", true, true, Duration.ofMillis(100)), s)));
      print(add(report, debezium.measure(Debezium.Setup.defaults(), l)));
      print(add(report, debezium.measure(Debezium.Setup.fastPoll(fastPollMillis), l)));
    }
  }

  private static Result add(Report report, Result r) {
    report.add(r);
    return r;
  }

  private static void print(Result r) {
    System.out.printf("  latency %-20s %,5d/s: %,.0f events/s, consume p50 %.1f / p99 %.1f / max %.1f ms, lost %s%n",
        r.variant(), ((Number) r.param("rate")).intValue(), r.number("achieved_rate"), r.number("consume_p50_ms"),
        r.number("consume_p99_ms"), r.number("consume_max_ms"), r.metrics().get("not_consumed"));
  }

  /** The write and relay bars, and one latency CDF per rate ({@code latency-cdf-<rate>.png}). */
  private void plot(Report report) throws Exception {
    List<Path> written = new ArrayList<>();
    written.add(Plots.writeBars(report.results(), report.dir(),
        "write", "Write: committed tx/s, Twinbox vs Debezium outbox (private PG 15, same run)", "write-throughput.png"));
    written.add(Plots.relayBars(report.results(), report.dir()));
    for (int rate : rates) {
      List<Result> mine = report.results().stream()
          .filter(r -> r.scenario().equals("latency") && r.param("rate").equals(rate)).toList();
      Path p = Plots.latencyCdf(mine, report.dir());
      if (p != null) {
        written.add(Files.move(p, report.dir().resolve("latency-cdf-" + rate + ".png"), StandardCopyOption.REPLACE_EXISTING));
      }
    }
    for (Path p : written) {
      if (p != null) {
        System.out.println("plot: " + p);
      }
    }
  }

  private static Map<String, String> orderedSettings(String... nameValue) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      m.put(nameValue[i], nameValue[i + 1]);
    }
    return Collections.unmodifiableMap(m);
  }
}
