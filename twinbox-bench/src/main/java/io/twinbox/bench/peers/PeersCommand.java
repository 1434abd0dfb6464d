package io.twinbox.bench.peers;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Plots;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.latency.LatencyBench;
import io.twinbox.bench.peers.gruelbox.Gruelbox;
import io.twinbox.bench.peers.gruelbox.GruelboxLatency;
import io.twinbox.bench.peers.gruelbox.GruelboxRelay;
import io.twinbox.bench.peers.gruelbox.GruelboxWritePath;
import io.twinbox.bench.peers.modulith.Modulith;
import io.twinbox.bench.peers.modulith.ModulithLatency;
import io.twinbox.bench.peers.modulith.ModulithRelay;
import io.twinbox.bench.peers.modulith.ModulithWritePath;
import io.twinbox.bench.peers.namastack.Namastack;
import io.twinbox.bench.peers.namastack.NamastackLatency;
import io.twinbox.bench.peers.namastack.NamastackRelay;
import io.twinbox.bench.peers.namastack.NamastackWritePath;
import io.twinbox.bench.relay.Drainer;
import io.twinbox.bench.relay.RelayBench;
import io.twinbox.bench.relay.TwinboxDrainer;
import io.twinbox.bench.write.WriteBench;
import io.twinbox.bench.write.WritePath;
import io.twinbox.bench.write.WritePaths;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code peers}: Twinbox and the peer libraries (issue 9) in one run, on one fresh PostgreSQL
 * database and one Kafka broker: write overhead, relay throughput and commit-to-consume latency.
 * Results go to {@code <results>/results.jsonl} (default {@code results/peers}), with the same
 * scenario names and metrics as the other commands, so that the harness's plots draw them.
 */
@Command(name = "peers", mixinStandardHelpOptions = true,
    description = "Twinbox against the peer libraries (gruelbox transaction-outbox, Spring Modulith, namastack-outbox) in one run: write, relay, latency.")
public final class PeersCommand implements Callable<Integer> {

  @Option(names = "--results", defaultValue = "results/peers",
      description = "Directory for results.jsonl and the plots (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(names = "--scenarios", split = ",", defaultValue = "write,relay,latency",
      description = "Scenarios to run (default: ${DEFAULT-VALUE}).")
  List<String> scenarios;

  @Option(names = "--peers", split = ",", defaultValue = "gruelbox,modulith,namastack",
      description = "Peers to measure beside Twinbox: gruelbox, modulith, namastack (default: ${DEFAULT-VALUE}).")
  List<String> peers;

  @Option(names = {"-c", "--clients"}, split = ",", defaultValue = "1,4,16",
      description = "write: client thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> clients;

  @Option(names = "--write-seconds", defaultValue = "8", description = "write: measured seconds per path (default: ${DEFAULT-VALUE}).")
  int writeSeconds;

  @Option(names = "--write-slices", defaultValue = "4", description = "write: ABBA slices (default: ${DEFAULT-VALUE}).")
  int writeSlices;

  @Option(names = "--events", defaultValue = "20000", description = "relay: pending events per drain (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--relay-timeout", defaultValue = "60",
      description = "relay: longest drain, seconds; a slower drainer is rated on what it drained (default: ${DEFAULT-VALUE}).")
  int relayTimeout;

  @Option(names = "--twinbox-workers", defaultValue = "2", description = "relay: Twinbox relay workers (default: ${DEFAULT-VALUE}, the library's default).")
  int twinboxWorkers;

  @Option(names = "--tuned-threads", defaultValue = "8",
      description = "gruelbox tuned: submitter executor threads; Spring Modulith tuned: task executor threads; "
          + "namastack tuned: processing executor threads (default: ${DEFAULT-VALUE}).")
  int tunedThreads;

  @Option(names = "--rate", defaultValue = "500", description = "latency: events/s, all writers together (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--writers", defaultValue = "4", description = "latency: writer threads (default: ${DEFAULT-VALUE}).")
  int writers;

  @Option(names = "--latency-seconds", defaultValue = "20", description = "latency: measured seconds (default: ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(names = "--warmup", defaultValue = "3", description = "Warm-up seconds (write per path, latency) (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--partitions", defaultValue = "8", description = "Kafka topic partitions (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Override
  public Integer call() throws Exception {
    for (String p : peers) {
      if (!List.of("gruelbox", "modulith", "namastack").contains(p)) {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "--peers: unknown peer '" + p + "' (known: gruelbox, modulith, namastack)");
      }
    }
    Report report = new Report(results);
    Quiet.configure(0, 0);
    try (PostgresDatabase db = PostgresDatabase.create()) {
      JdbcStore.builder(db.dataSource()).build().migrate();
      Gruelbox.migrate(db.dataSource());
      if (peers.contains("modulith")) {
        // Creates Modulith's event_publication table (its own schema initialization) once.
        Modulith.start(Modulith.Setup.defaults(), db.dataSource(), "127.0.0.1:1").close();
      }
      if (peers.contains("namastack")) {
        // Creates namastack's outbox_record, outbox_instance and outbox_partition tables (its own schema initialization) once.
        Namastack.start(Namastack.Setup.idle(), db.dataSource(), "127.0.0.1:1").close();
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
    PeerTables.print(report.results());
    for (Path p : new Path[] {Plots.writeBars(report.results(), report.dir()),
        Plots.relayBars(report.results(), report.dir()), Plots.latencyCdf(report.results(), report.dir())}) {
      if (p != null) {
        System.out.println("plot: " + p);
      }
    }
    return 0;
  }

  private void write(PostgresDatabase db, Report report) throws Exception {
    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    List<WritePath> paths = new ArrayList<>(List.of(WritePaths.businessOnly(), WritePaths.twinbox(outbox)));
    if (peers.contains("gruelbox")) {
      paths.add(new GruelboxWritePath("orders"));
    }
    ConfigurableApplicationContext modulith = null;
    if (peers.contains("modulith")) {
      // The application's DataSource is only the key under which the harness's connection is bound.
      modulith = Modulith.start(Modulith.Setup.defaults(), db.dataSource(), "127.0.0.1:1");
      paths.add(new ModulithWritePath(modulith, "modulith", "orders"));
    }
    ConfigurableApplicationContext namastack = null;
    if (peers.contains("namastack")) {
      // Its poller does not run within the hour: no relay runs in the write scenario for any contender.
      namastack = Namastack.start(Namastack.Setup.idle(), db.dataSource(), "127.0.0.1:1");
      paths.add(new NamastackWritePath(namastack, "orders"));
    }
    try {
      write(db, report, paths);
    } finally {
      if (modulith != null) {
        modulith.close();
      }
      if (namastack != null) {
        namastack.close();
        Namastack.clear(db.dataSource());
      }
    }
  }

  private void write(PostgresDatabase db, Report report, List<WritePath> paths) throws Exception {
    WriteBench bench = new WriteBench(db.dataSource());
    for (int c : clients) {
      try (HikariDataSource pool = Pools.create(db, "peers-writers-" + c, c, false)) {
        for (Result r : bench.measure(paths, pool,
            new WriteBench.Settings(c, warmup, writeSeconds, writeSlices, 1, 1000))) {
          report.add(r);
          System.out.printf("  write %-14s %2d clients: %,8.0f tx/s  slices %s%n", r.variant(), c,
              r.number("tx_per_s"), r.metrics().get("slice_tx_per_s"));
        }
      }
    }
  }

  private void relay(PostgresDatabase db, KafkaBroker broker, Report report) throws Exception {
    RelayBench twinbox = new RelayBench(new Drainer.Context(db, db.dataSource(), broker, null, events,
        Duration.ofSeconds(relayTimeout)), 10_000, partitions);
    // Warm the JIT and the broker for both libraries before anything is recorded.
    twinbox.warmup(new TwinboxDrainer(twinboxWorkers, 500, 0, TwinboxDrainer.Tuning.DEFAULT), 5_000);
    GruelboxRelay gruelbox = new GruelboxRelay(db, broker);
    ModulithRelay modulith = new ModulithRelay(db, broker);
    NamastackRelay namastack = new NamastackRelay(db, broker);
    String warmTopic = "bench-peers-warm-" + report.runId();
    io.twinbox.bench.Topics.createWarm(broker, warmTopic, partitions);
    if (peers.contains("gruelbox")) {
      gruelbox.prefill(warmTopic, 2_000, 10_000);
      gruelbox.drain(Gruelbox.Setup.tuned(tunedThreads), warmTopic, Duration.ofSeconds(30));
    }
    if (peers.contains("modulith")) {
      modulith.prefill(warmTopic, 2_000, 10_000);
      modulith.drain(Modulith.Setup.tuned(tunedThreads), Duration.ofSeconds(30));
    }
    if (peers.contains("namastack")) {
      namastack.prefill(warmTopic, 2_000, 10_000);
      namastack.drain(Namastack.Setup.tuned(tunedThreads), Duration.ofSeconds(30));
    }

    Result t = twinbox.measure(new TwinboxDrainer(twinboxWorkers, 500, 0, TwinboxDrainer.Tuning.DEFAULT), report.runId());
    report.add(t);
    if (peers.contains("modulith")) {
      for (Modulith.Setup s : List.of(Modulith.Setup.defaults(), Modulith.Setup.tuned(tunedThreads))) {
        String topic = "bench-peers-relay-" + report.runId() + "-" + s.name();
        io.twinbox.bench.Topics.createWarm(broker, topic, partitions);
        long t0 = System.nanoTime();
        modulith.prefill(topic, events, 10_000);
        System.out.printf("  %s: pre-filled %,d publications in %.1f s%n", s.name(), events, (System.nanoTime() - t0) / 1e9);
        report.add(modulith.drain(s, Duration.ofSeconds(relayTimeout)));
      }
      Modulith.clear(db.dataSource());
    }
    if (peers.contains("namastack")) {
      for (Namastack.Setup s : List.of(Namastack.Setup.defaults(), Namastack.Setup.tuned(tunedThreads))) {
        String topic = "bench-peers-relay-" + report.runId() + "-" + s.name();
        io.twinbox.bench.Topics.createWarm(broker, topic, partitions);
        long t0 = System.nanoTime();
        namastack.prefill(topic, events, 10_000);
        System.out.printf("  %s: pre-filled %,d records in %.1f s%n", s.name(), events, (System.nanoTime() - t0) / 1e9);
        report.add(namastack.drain(s, Duration.ofSeconds(relayTimeout)));
      }
      Namastack.clear(db.dataSource());
    }
    if (!peers.contains("gruelbox")) {
      return;
    }
    for (Gruelbox.Setup s : List.of(Gruelbox.Setup.defaults(), Gruelbox.Setup.tuned(tunedThreads))) {
      String topic = "bench-peers-relay-" + report.runId() + "-" + s.name();
      io.twinbox.bench.Topics.createWarm(broker, topic, partitions);
      long t0 = System.nanoTime();
      gruelbox.prefill(topic, events, 10_000);
      System.out.printf("  %s: pre-filled %,d entries in %.1f s%n", s.name(), events, (System.nanoTime() - t0) / 1e9);
      report.add(gruelbox.drain(s, topic, Duration.ofSeconds(relayTimeout)));
    }
    Gruelbox.clear(db.dataSource());
  }

  private void latency(PostgresDatabase db, KafkaBroker broker, Report report) throws Exception {
    LatencyBench twinbox = new LatencyBench(db, broker, report.runId());
    Result t = twinbox.measure(new LatencyBench.Variant("twinbox", true, true, Duration.ofMillis(500)),
        new LatencyBench.Settings(rate, writers, warmup, latencySeconds, 1000, partitions));
    report.add(t);
    print(t);
    if (peers.contains("modulith")) {
      ModulithLatency modulith = new ModulithLatency(db, broker, report.runId());
      for (Modulith.Setup s : List.of(Modulith.Setup.defaults(), Modulith.Setup.tuned(tunedThreads))) {
        Result r = modulith.measure(s, rate, writers, warmup, latencySeconds, 1000, partitions);
        report.add(r);
        print(r);
      }
    }
    if (peers.contains("namastack")) {
      NamastackLatency namastack = new NamastackLatency(db, broker, report.runId());
      for (Namastack.Setup s : List.of(Namastack.Setup.defaults(), Namastack.Setup.tuned(tunedThreads))) {
        Result r = namastack.measure(s, rate, writers, warmup, latencySeconds, 1000, partitions);
        report.add(r);
        print(r);
      }
      Namastack.clear(db.dataSource());
    }
    if (peers.contains("gruelbox")) {
      GruelboxLatency gruelbox = new GruelboxLatency(db, broker, report.runId());
      for (Gruelbox.Setup s : List.of(Gruelbox.Setup.defaults(), Gruelbox.Setup.tuned(tunedThreads))) {
        Result r = gruelbox.measure(s, rate, writers, warmup, latencySeconds, 1000, partitions);
        report.add(r);
        print(r);
      }
    }
  }

  private static void print(Result r) {
    System.out.printf("  latency %-16s: %,.0f events/s, consume p50 %.1f / p99 %.1f / max %.1f ms, lost %s%n",
        r.variant(), r.number("achieved_rate"), r.number("consume_p50_ms"), r.number("consume_p99_ms"),
        r.number("consume_max_ms"), r.metrics().get("not_consumed"));
  }

}
