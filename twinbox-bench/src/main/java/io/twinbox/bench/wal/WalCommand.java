package io.twinbox.bench.wal;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Plots;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.latency.LatencyBench;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.bench.peers.debezium.Debezium;
import io.twinbox.bench.peers.debezium.DebeziumLatency;
import io.twinbox.bench.peers.debezium.DebeziumRelay;
import io.twinbox.bench.write.WriteBench;
import io.twinbox.bench.write.WritePaths;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.nio.file.Path;
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
 * {@code wal}: the WAL relay (issue 15) against the polling relay and Debezium's outbox event router,
 * on one private {@code wal_level=logical} cluster (the settings of the {@code debezium} command) and
 * one Kafka broker, in one run: the drain of a backlog (events/s, and the cluster's CPU seconds and
 * WAL bytes per 1,000 events), then commit → broker-ack latency at steady rates. Every measurement
 * records the load average before and after it, and the command prints {@code uptime} at its start
 * and end. Results go to {@code <results>/results.jsonl} (default {@code results/wal}); the plots
 * beside it.
 */
@Command(name = "wal", mixinStandardHelpOptions = true,
    description = "The WAL relay against the polling relay and Debezium's outbox router (both modes) on a private "
        + "wal_level=logical cluster: drain, database cost, commit→ack latency.")
public final class WalCommand implements Callable<Integer> {
  static final List<String> DRAINERS = List.of("twinbox-wal", "twinbox-polling", "debezium", "debezium-keep-rows");

  @Option(names = "--results", defaultValue = "results/wal",
      description = "Directory for results.jsonl and the plots (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(names = "--scenarios", split = ",", defaultValue = "relay,latency",
      description = "Scenarios to run: relay, latency, write (the \"never a row\" write paths against business-only) "
          + "(default: ${DEFAULT-VALUE}).")
  List<String> scenarios;

  @Option(names = "--events", defaultValue = "200000", description = "relay: backlog per drain (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--events-per-tx", defaultValue = "1",
      description = "relay: events per transaction of the WAL relay's and Debezium's backlogs (default: ${DEFAULT-VALUE}).")
  int eventsPerTx;

  @Option(names = "--aggregates", defaultValue = "10000", description = "relay: distinct aggregates (default: ${DEFAULT-VALUE}).")
  int aggregates;

  @Option(names = "--drainers", split = ",", defaultValue = "twinbox-wal,twinbox-polling,debezium,debezium-keep-rows",
      description = "relay: contenders, in this order (reversed every other round); twinbox-wal-b<N> is the WAL relay "
          + "with batchSize N (default: ${DEFAULT-VALUE}).")
  List<String> drainers;

  @Option(names = "--rounds", defaultValue = "3",
      description = "relay and latency: repetitions, every other one in reverse order (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--relay-timeout", defaultValue = "300", description = "relay: longest drain, seconds (default: ${DEFAULT-VALUE}).")
  int relayTimeout;

  @Option(names = "--warmup-events", defaultValue = "5000",
      description = "relay: events each contender drains, unrecorded, before the first round; 0: none (default: ${DEFAULT-VALUE}).")
  int warmupEvents;

  @Option(names = {"-c", "--clients"}, split = ",", defaultValue = "1,4,16",
      description = "write: client thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> clients;

  @Option(names = "--write-seconds", defaultValue = "8", description = "write: measured seconds per path (default: ${DEFAULT-VALUE}).")
  int writeSeconds;

  @Option(names = "--rates", split = ",", defaultValue = "500,2000",
      description = "latency: events/s, all writers together (default: ${DEFAULT-VALUE}).")
  List<Integer> rates;

  @Option(names = "--writers", defaultValue = "4", description = "latency: writer threads (default: ${DEFAULT-VALUE}).")
  int writers;

  @Option(names = "--latency-seconds", defaultValue = "20", description = "latency: measured seconds (default: ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(names = "--warmup", defaultValue = "3", description = "latency: warm-up seconds (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--fast-poll-ms", defaultValue = "10",
      description = "latency: poll.interval.ms of the tuned Debezium engine (default: ${DEFAULT-VALUE}).")
  long fastPollMillis;

  @Option(names = "--sample-ms", defaultValue = "0",
      description = "relay: sample the WAL relay's stream and reader threads every N ms and print where they spend "
          + "their time; 0: off (default: ${DEFAULT-VALUE}).")
  long sampleMillis;

  @Option(names = "--latency-sweep-ms", split = ",", defaultValue = "0",
      description = "latency: also measure the WAL relay with walSweepInterval of these many ms (variant "
          + "twinbox-wal-sweep<N>ms), to see what the periodic sweep costs the tail; 0: none (default: ${DEFAULT-VALUE}).")
  List<Long> latencySweepMillis;

  @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Override
  public Integer call() throws Exception {
    for (String d : drainers) {
      if (!DRAINERS.contains(d) && !d.matches("twinbox-wal-b[1-9][0-9]*")) {
        throw new IllegalArgumentException("--drainers: unknown contender " + d + "; known: " + DRAINERS
            + " and twinbox-wal-b<batch size> (the WAL relay with batchSize <batch size>)");
      }
    }
    Report report = new Report(results);
    Quiet.configure(0, 0);
    System.out.println("uptime at start: " + Uptime.now());
    Map<String, String> settings = new LinkedHashMap<>(io.twinbox.bench.peers.debezium.DebeziumCommand.clusterSettings());
    try (PrivatePostgresCluster cluster = PrivatePostgresCluster.builder().settings(settings).start()) {
      System.out.println(cluster + "; " + settings);
      try (PostgresDatabase db = PostgresDatabase.createOn("127.0.0.1", cluster.port(), "postgres", "")) {
        JdbcStore.builder(db.dataSource()).build().migrate();
        Debezium.migrate(db.dataSource());
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
          st.execute(WritePaths.ORDERS_DDL);
        }
        Map<String, Object> machine = new LinkedHashMap<>(Machine.describe(db.dataSource()));
        machine.put("uptime_at_start", Uptime.now());
        report.machine(machine);
        ClusterCost cost = new ClusterCost(cluster.dataDir(), db.dataSource());
        System.out.println("run " + report.runId() + " on " + report.machine());
        System.out.println("database " + db.name() + " (postmaster pid " + cost.postmasterPid() + "), load average "
            + Report.load(Machine.load1()));
        if (scenarios.contains("write")) {
          write(db, report);
        }
        if (!scenarios.contains("relay") && !scenarios.contains("latency")) {
          System.out.println("uptime at end: " + Uptime.now());
          WalTables.print(report.results());
          return 0;
        }
        try (KafkaBroker broker = KafkaBroker.start()) {
          System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
          if (scenarios.contains("relay")) {
            relay(db, broker, cost, report);
          }
          if (scenarios.contains("latency")) {
            latency(db, broker, report);
          }
        }
      }
    }
    System.out.println("uptime at end: " + Uptime.now());
    WalTables.print(report.results());
    plot(report);
    return 0;
  }

  /** The "never a row" candidates against business-only and the library's write, 4 ABBA slices per path. */
  private void write(PostgresDatabase db, Report report) throws Exception {
    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    WriteBench bench = new WriteBench(db.dataSource(), List.of(WritePaths.ORDERS_DDL, "TRUNCATE orders, twinbox_outbox",
        "VACUUM ANALYZE twinbox_aggregate", "CHECKPOINT"), "write");
    for (int c : clients) {
      try (HikariDataSource pool = Pools.create(db, "wal-writers-" + c, c, false)) {
        for (Result r : bench.measure(NeverARowPaths.all(outbox), pool,
            new WriteBench.Settings(c, warmup, writeSeconds, 4, 1, 1000))) {
          r.param("uptime", Uptime.now());
          report.add(r);
          System.out.printf("  write %-22s %2d clients: %,8.0f tx/s  slices %s  load %s%n", r.variant(), c,
              r.number("tx_per_s"), r.metrics().get("slice_tx_per_s"), Report.load(r.loadBeforeOrAfter()));
        }
      }
    }
  }

  private void relay(PostgresDatabase db, KafkaBroker broker, ClusterCost cost, Report report) throws Exception {
    TwinboxBacklogDrain twinbox = new TwinboxBacklogDrain(db, broker, cost, report.runId(), aggregates, partitions,
        sampleMillis);
    DebeziumRelay debezium = new DebeziumRelay(db, broker, report.runId(), new CostPhases(cost));
    Duration timeout = Duration.ofSeconds(relayTimeout);
    if (warmupEvents > 0) {
      // Warm the JIT, the broker and the caches for every contender before anything is recorded.
      for (String d : drainers) {
        Result warm = drainOnce(d, twinbox, debezium, warmupEvents, timeout);
        System.out.printf("  warm-up: %s drained %,d events in %.1f s%n", d, warmupEvents, warm.number("seconds"));
      }
    }
    for (int round = 1; round <= rounds; round++) {
      List<String> now = new ArrayList<>(drainers);
      if (round % 2 == 0) {
        Collections.reverse(now);
      }
      for (String d : now) {
        Result r = drainOnce(d, twinbox, debezium, events, timeout);
        r.param("round", round);
        r.param("uptime", Uptime.now());
        report.add(r);
      }
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE twinbox_outbox, " + Debezium.TABLE);
    }
  }

  private Result drainOnce(String drainer, TwinboxBacklogDrain twinbox, DebeziumRelay debezium, int n,
      Duration timeout) throws Exception {
    return switch (drainer) {
      case "twinbox-wal" -> twinbox.wal("twinbox-wal", 500, n, eventsPerTx, timeout);
      case "twinbox-polling" -> twinbox.polling(n, 2, timeout);
      case "debezium" -> debezium.measure(Debezium.Writes.INSERT_DELETE, Debezium.Setup.defaults(), n, eventsPerTx,
          aggregates, partitions, timeout);
      case "debezium-keep-rows" -> debezium.measure(Debezium.Writes.INSERT_ONLY, Debezium.Setup.defaults(), n,
          eventsPerTx, aggregates, partitions, timeout);
      default -> twinbox.wal(drainer, Integer.parseInt(drainer.substring("twinbox-wal-b".length())), n, eventsPerTx,
          timeout);
    };
  }

  private void latency(PostgresDatabase db, KafkaBroker broker, Report report) throws Exception {
    LatencyBench twinbox = new LatencyBench(db, broker, report.runId());
    DebeziumLatency debezium = new DebeziumLatency(db, broker, report.runId());
    for (int round = 1; round <= rounds; round++) {
      List<Integer> order = new ArrayList<>(rates);
      for (int rate : order) {
        LatencyBench.Settings s = new LatencyBench.Settings(rate, writers, warmup, latencySeconds, 1000, partitions);
        PeerLatencyReport.Load l = new PeerLatencyReport.Load(rate, writers, warmup, latencySeconds, 1000, partitions);
        List<String> contenders = new ArrayList<>(List.of("twinbox-wal", "debezium-tuned"));
        latencySweepMillis.stream().filter(ms -> ms > 0).forEach(ms -> contenders.add("twinbox-wal-sweep" + ms + "ms"));
        if (round % 2 == 0) {
          Collections.reverse(contenders);
        }
        for (String who : contenders) {
          Result r;
          if (who.equals("twinbox-wal")) {
            r = twinbox.measure(LatencyBench.Variant.wal("twinbox-wal"), s);
          } else if (who.startsWith("twinbox-wal-sweep")) {
            long ms = Long.parseLong(who.substring("twinbox-wal-sweep".length(), who.length() - 2));
            r = twinbox.measure(LatencyBench.Variant.wal(who, Duration.ofMillis(ms)), s);
          } else {
            r = debezium.measure(Debezium.Setup.fastPoll(fastPollMillis), l);
          }
          r.param("round", round);
          r.param("uptime", Uptime.now());
          report.add(r);
          System.out.printf("  latency %-20s %,5d/s round %d: %,.0f events/s, ack p50 %.1f / p99 %.1f / max %.1f ms, "
                  + "not acked %s, load %s%n", r.variant(), rate, round, r.number("achieved_rate"),
              r.number("ack_p50_ms"), r.number("ack_p99_ms"), r.number("ack_max_ms"), r.metrics().get("not_acked"),
              Report.load(r.loadBeforeOrAfter()));
        }
      }
    }
  }

  /** One ack CDF per rate (the median round's line of each contender) and the drain bars. */
  private void plot(Report report) throws Exception {
    List<Path> written = new ArrayList<>();
    written.add(WalTables.drainBars(report.results(), report.dir()));
    for (int rate : rates) {
      List<Result> lines = WalTables.medianLatencyRuns(report.results(), rate);
      written.add(Plots.cdf(lines, report.dir(), "ack",
          "Commit → broker-ack latency at " + rate + " events/s (median round of each), CDF", 15.0,
          "goal at 2,000/s: p99 ≤ 15 ms", "ack-latency-cdf-" + rate + ".png"));
    }
    for (Path p : written) {
      if (p != null) {
        System.out.println("plot: " + p);
      }
    }
  }

  /** Meters the cluster around each phase of a Debezium measurement. */
  private static final class CostPhases implements DebeziumRelay.Phases {
    private final ClusterCost cost;
    private ClusterCost.Sample start;

    CostPhases(ClusterCost cost) {
      this.cost = cost;
    }

    @Override
    public void before(String phase) throws Exception {
      start = cost.sample();
    }

    @Override
    public Map<String, Object> after(String phase, long events) throws Exception {
      return ClusterCost.between(start, cost.sample(), events, phase.equals("prefill") ? "write_" : "drain_");
    }
  }
}
