package io.twinbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.bench.brokers.BrokerTarget;
import io.twinbox.bench.brokers.BrokersBench;
import io.twinbox.bench.inbox.InboxBench;
import io.twinbox.bench.mariadb.MariaDbBench;
import io.twinbox.bench.write.WriteBench;
import io.twinbox.bench.write.WritePath;
import io.twinbox.bench.write.WritePaths;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The scenarios of issues 3 (inbox), 4 (brokers) and 5 (MariaDB). */
final class IssueScenarios {
  private IssueScenarios() {}

  private static PostgresDatabase postgres(Report report) {
    PostgresDatabase db = PostgresDatabase.create();
    JdbcStore.builder(db.dataSource()).build().migrate();
    if (report.machine().isEmpty()) {
      report.machine(Machine.describe(db.dataSource()));
    }
    System.out.println("run " + report.runId() + " on " + report.machine());
    System.out.println("database " + db.name() + ", load average " + Report.load(Machine.load1()));
    return db;
  }

  private static <T> List<T> abba(List<T> items, int round) {
    List<T> order = new ArrayList<>(items);
    if (round % 2 == 1) {
      Collections.reverse(order);
    }
    return order;
  }

  @Command(name = "inbox", mixinStandardHelpOptions = true,
      description = "Issues 3 and 16: messages/s Kafka → PostgreSQL through KafkaInboxConsumer (1 and 50 per "
          + "transaction, and 50 with duplicates) next to a raw-SQL batched inbox and a plain KafkaConsumer loop on the "
          + "same database; with --brokers also RabbitMQ and NATS, each next to a hand-written loop of that broker.")
  static final class Inbox implements Callable<Integer> {
    @Mixin Commands.Common common;

    @Option(names = "--messages", defaultValue = "20000",
        description = "Messages per batched variant (default: ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--single-messages", defaultValue = "2000",
        description = "Messages for the 1-per-transaction variants (default: ${DEFAULT-VALUE}).")
    int singleMessages;

    @Option(names = "--batch", defaultValue = "50", description = "Messages per transaction, batched variants (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--duplicates", defaultValue = "0.2", description = "Duplicate share of the dup variant (default: ${DEFAULT-VALUE}).")
    double duplicates;

    @Option(names = "--partitions", defaultValue = "4", description = "Topic partitions (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--rounds", defaultValue = "2", description = "Rounds, every other one reversed (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--sample-ms", defaultValue = "0",
        description = "Sample the library consumer thread's stack every N ms (0: off) and report where it spends time.")
    long sampleMillis;

    @Option(names = "--brokers", split = ",", defaultValue = "kafka",
        description = "Brokers (kafka, rabbitmq, nats; default: ${DEFAULT-VALUE}). RabbitMQ and NATS run the library "
            + "with a per-message and a batch handler next to a hand-written consumer loop of that broker; Kafka "
            + "runs every variant.")
    List<String> brokers;

    @Option(names = "--rabbit-uri", defaultValue = "amqp://guest:guest@127.0.0.1:5672/%2f",
        description = "RabbitMQ (default: the shared local server; a fresh quorum queue per measurement, deleted after).")
    String rabbitUri;

    @Option(names = "--nats-url", defaultValue = "nats://127.0.0.1:4222",
        description = "NATS (default: ${DEFAULT-VALUE}; a fresh stream per measurement, deleted after).")
    String natsUrl;

    private record Planned(InboxBench bench, InboxBench.Variant variant) {}

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      try (PostgresDatabase db = postgres(report); KafkaBroker broker = KafkaBroker.start()) {
        System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
        InboxBench bench = new InboxBench(db, broker, report.runId(), partitions).sampleEvery(sampleMillis);
        List<InboxBench.Variant> kafka = List.of(
            new InboxBench.Variant("raw-sql-batch-" + batch, InboxBench.Kind.RAW_SQL, batch, 0, messages),
            new InboxBench.Variant("twinbox-batch-" + batch, InboxBench.Kind.TWINBOX, batch, 0, messages),
            new InboxBench.Variant("twinbox-batch-" + batch + "-batch-handler", InboxBench.Kind.TWINBOX_BATCH_HANDLER,
                batch, 0, messages),
            new InboxBench.Variant("twinbox-batch-1", InboxBench.Kind.TWINBOX, 1, 0, singleMessages),
            new InboxBench.Variant("twinbox-no-broker-batch-" + batch + "-batch-handler", InboxBench.Kind.TWINBOX_NO_BROKER,
                batch, 0, messages),
            new InboxBench.Variant("twinbox-batch-" + batch + "-dup" + Math.round(duplicates * 100),
                InboxBench.Kind.TWINBOX, batch, duplicates, messages),
            new InboxBench.Variant("raw-kafka-batch-" + batch, InboxBench.Kind.RAW_BROKER, batch, 0, messages),
            new InboxBench.Variant("raw-sql-per-row-batch-" + batch, InboxBench.Kind.RAW_SQL_PER_ROW, batch, 0, messages),
            new InboxBench.Variant("raw-sql-batch-1", InboxBench.Kind.RAW_SQL, 1, 0, singleMessages));
        List<Planned> plan = new ArrayList<>();
        for (String b : brokers) {
          InboxBench on = switch (b) {
            case "kafka" -> bench;
            case "rabbitmq" -> bench.onRabbit(rabbitUri);
            case "nats" -> bench.onNats(natsUrl);
            default -> throw new IllegalArgumentException("--brokers: unknown broker " + b + "; known: kafka, rabbitmq, nats");
          };
          if (on == bench) {
            kafka.forEach(v -> plan.add(new Planned(bench, v)));
          } else {
            String n = on.brokerName();
            plan.add(new Planned(on, new InboxBench.Variant("raw-" + n + "-batch-" + batch, InboxBench.Kind.RAW_BROKER,
                batch, 0, messages)));
            plan.add(new Planned(on, new InboxBench.Variant("twinbox-" + n + "-batch-" + batch + "-batch-handler",
                InboxBench.Kind.TWINBOX_BATCH_HANDLER, batch, 0, messages)));
            plan.add(new Planned(on, new InboxBench.Variant("twinbox-" + n + "-batch-" + batch, InboxBench.Kind.TWINBOX,
                batch, 0, messages)));
          }
        }
        // Unrecorded warm-up of every path (JIT, caches); the SQL-only paths once, on the first bench.
        java.util.Set<String> warm = new java.util.HashSet<>();
        for (Planned p : plan) {
          InboxBench.Kind k = p.variant().kind();
          boolean sqlOnly = k == InboxBench.Kind.RAW_SQL || k == InboxBench.Kind.RAW_SQL_PER_ROW;
          if (warm.add((sqlOnly ? "" : p.bench().brokerName()) + k)) {
            p.bench().measure(new InboxBench.Variant("warmup-" + k, k, batch, 0, Math.min(messages, 5000)));
          }
        }
        for (int round = 0; round < rounds; round++) {
          for (Planned p : abba(plan, round)) {
            Result r = p.bench().measure(p.variant());
            r.param("round", round + 1);
            report.add(r);
          }
        }
      }
      Report.table("Inbox (issue 3): consumed messages/s → PostgreSQL", InboxBench.table(report.results(), batch));
      Report.table("Inbox (issue 16): library vs the hand-written consumer loop, per broker",
          io.twinbox.bench.inbox.InboxRatios.table(report.results(), batch));
      plot(report.results(), report.dir());
      return 0;
    }

    static Path plot(List<Result> results, Path dir) throws Exception {
      return Plots.bars(Plots.byVariant(results, "inbox", "consumed_per_s", Result::variant), dir, "inbox-throughput.png",
          "Inbox: consumed messages/s, Kafka → PostgreSQL (mean of rounds)", "messages/s");
    }
  }

  @Command(name = "brokers", mixinStandardHelpOptions = true,
      description = "Issue 4: relay drain events/s and commit→ack p99 per broker (Kafka, RabbitMQ, NATS JetStream), "
          + "same PostgreSQL, same run.")
  static final class Brokers implements Callable<Integer> {
    @Mixin Commands.Common common;

    @Option(names = "--events", defaultValue = "50000", description = "Pending events per drain (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--aggregates", defaultValue = "10000", description = "Distinct aggregates (default: ${DEFAULT-VALUE}).")
    int aggregates;

    @Option(names = "--workers", defaultValue = "2", description = "Relay workers for the drain (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--batch", defaultValue = "500", description = "Relay batch size (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--rate", defaultValue = "200", description = "Latency: events/s of all writers (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--writers", defaultValue = "2", description = "Latency: writer threads (default: ${DEFAULT-VALUE}).")
    int writers;

    @Option(names = {"-s", "--seconds"}, defaultValue = "20", description = "Latency: measured seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--brokers", split = ",", defaultValue = "kafka,rabbitmq,nats",
        description = "Brokers (default: ${DEFAULT-VALUE}).")
    List<String> brokers;

    @Option(names = "--rabbit-uri", defaultValue = "amqp://guest:guest@127.0.0.1:5672/%2f",
        description = "RabbitMQ (default: the shared local server).")
    String rabbitUri;

    @Option(names = "--nats-url", defaultValue = "nats://127.0.0.1:4222", description = "NATS (default: ${DEFAULT-VALUE}).")
    String natsUrl;

    @Option(names = "--rounds", defaultValue = "2", description = "Rounds, every other one reversed (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      try (PostgresDatabase db = postgres(report); KafkaBroker broker = KafkaBroker.start()) {
        System.out.println("Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
        List<BrokerTarget> targets = new ArrayList<>();
        for (String b : brokers) {
          targets.add(switch (b) {
            case "kafka" -> BrokerTarget.kafka(broker, 8);
            case "rabbitmq" -> BrokerTarget.rabbit(rabbitUri);
            case "nats" -> BrokerTarget.nats(natsUrl);
            default -> throw new IllegalArgumentException("unknown broker " + b + "; known: kafka, rabbitmq, nats");
          });
        }
        BrokersBench bench = new BrokersBench(db, report.runId(), Set.of(broker.pid()));
        for (BrokerTarget t : targets) { // unrecorded warm-up
          bench.throughput(t, Math.min(events, 5000), aggregates, workers, batch, Duration.ofSeconds(120));
        }
        for (int round = 0; round < rounds; round++) {
          for (BrokerTarget t : abba(targets, round)) {
            report.add(bench.throughput(t, events, aggregates, workers, batch, Duration.ofSeconds(300))
                .param("round", round + 1));
            report.add(bench.latency(t, rate, writers, 3, seconds, 1000).param("round", round + 1));
          }
        }
      }
      Report.table("Brokers (issue 4): relay drain and commit→ack, same PostgreSQL", BrokersBench.table(report.results()));
      plot(report.results(), report.dir());
      return 0;
    }

    static void plot(List<Result> results, Path dir) throws Exception {
      Plots.bars(Plots.byVariant(results, "brokers-throughput", "events_per_s", Result::variant), dir,
          "brokers-throughput.png", "Relay drain per broker: events/s (same PostgreSQL, mean of rounds)", "events/s");
      Plots.bars(Plots.byVariant(results, "brokers-latency", "ack_p99_ms", Result::variant), dir,
          "brokers-ack-p99.png", "Commit → broker ack p99 per broker, ms (mean of rounds)", "ms");
    }
  }

  @Command(name = "mariadb", mixinStandardHelpOptions = true,
      description = "Issue 5: MariaDB write overhead (business only, + raw-SQL outbox, + Twinbox) and relay "
          + "throughput (Twinbox → Kafka vs raw-SQL claim + delete), one run.")
  static final class MariaDb implements Callable<Integer> {
    @Mixin Commands.Common common;

    @Option(names = {"-c", "--clients"}, split = ",", defaultValue = "1,4,16", description = "Client counts (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = {"-s", "--seconds"}, defaultValue = "12", description = "Measured seconds per write path (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--slices", defaultValue = "3", description = "ABBA slices per path (default: ${DEFAULT-VALUE}).")
    int slices;

    @Option(names = "--events", defaultValue = "50000", description = "Relay: pending events per drain (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--workers", defaultValue = "2", description = "Relay workers (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--rounds", defaultValue = "2", description = "Relay rounds, ABBA (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--skip-write", description = "Only the relay part.")
    boolean skipWrite;

    @Override
    public Integer call() throws Exception {
      Report report = new Report(common.results);
      try (MariaDbDatabase db = MariaDbDatabase.create(); KafkaBroker broker = KafkaBroker.start()) {
        JdbcStore store = JdbcStore.builder(db.dataSource()).build();
        store.migrate();
        Map<String, Object> machine = new java.util.LinkedHashMap<>(Machine.describe(null));
        try (var c = db.dataSource().getConnection(); var st = c.createStatement();
            var rs = st.executeQuery("SELECT VERSION(), @@innodb_flush_log_at_trx_commit, @@innodb_buffer_pool_size")) {
          rs.next();
          machine.put("mariadb", rs.getString(1));
          machine.put("innodb_flush_log_at_trx_commit", rs.getString(2));
          machine.put("innodb_buffer_pool_size", rs.getLong(3));
        }
        report.machine(machine);
        System.out.println("run " + report.runId() + " on " + machine);
        System.out.println("database " + db.name() + ", Kafka " + broker.bootstrapServers() + ", load average "
            + Report.load(Machine.load1()));
        if (!skipWrite) {
          Outbox outbox = Outbox.builder(store).build();
          List<WritePath> paths = List.of(WritePaths.businessOnly(), MariaDbBench.rawSql(), WritePaths.twinbox(outbox));
          WriteBench bench = new WriteBench(db.dataSource(), MariaDbBench.RESET, "mariadb-write");
          for (int n : clients) {
            Quiet.await(Set.of());
            try (HikariDataSource pool = Pools.create(db.jdbcUrl(), MariaDbBench.user(), MariaDbBench.password(), "bench-maria-writers-" + n, n, false,
                null)) {
              for (Result r : bench.measure(paths, pool, new WriteBench.Settings(n, 3, seconds, slices, 1, 1000))) {
                report.add(r);
                System.out.printf("  mariadb write %-14s %2d clients: %,8.0f tx/s  slices %s%n", r.variant(), n,
                    r.number("tx_per_s"), r.metrics().get("slice_tx_per_s"));
              }
            }
          }
          Report.table("MariaDB write overhead (transactions/s)", writeTable(report.results()));
        }
        HikariDataSource admin = (HikariDataSource) db.dataSource();
        // Unrecorded warm-up of both drainers.
        MariaDbBench.relay("raw-sql-limit", db, admin, broker, null, 5000, 10_000, 1, 500, Duration.ofSeconds(120));
        MariaDbBench.relay("twinbox", db, admin, broker, "bench-maria-warmup-" + report.runId(), 5000, 10_000, workers,
            500, Duration.ofSeconds(180));
        List<String> drainers = List.of("raw-sql-limit", "twinbox");
        int topicNo = 0;
        for (int round = 0; round < rounds; round++) {
          for (String d : abba(drainers, round)) {
            String topic = d.equals("twinbox") ? "bench-maria-" + report.runId() + "-" + (++topicNo) : null;
            report.add(MariaDbBench.relay(d, db, admin, broker, topic, events, 10_000, d.equals("twinbox") ? workers : 1,
                500, Duration.ofSeconds(300)).param("round", round + 1));
          }
        }
      }
      Report.table("MariaDB relay (drain to Kafka vs raw-SQL claim + delete)", MariaDbBench.relayTable(report.results()));
      plot(report.results(), report.dir());
      return 0;
    }

    static void plot(List<Result> results, Path dir) throws Exception {
      Plots.writeBars(results, dir, "mariadb-write", "MariaDB write overhead: committed transactions/s (same run)",
          "mariadb-write-throughput.png");
      Plots.bars(Plots.byVariant(results, "mariadb-relay", "events_per_s", Result::variant), dir,
          "mariadb-relay-throughput.png", "MariaDB relay: drain events/s (mean of rounds)", "events/s");
    }

    static List<List<String>> writeTable(List<Result> all) {
      List<Result> w = all.stream().filter(r -> r.scenario().equals("mariadb-write")).toList();
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("path", "clients", "tx/s", "per slice", "mean ms", "vs raw-sql", "vs business-only",
          "cpu other", "load1"));
      for (Result r : w) {
        Object c = r.param("clients");
        Result raw = w.stream().filter(x -> x.variant().equals("raw-sql") && x.param("clients").equals(c)).findFirst()
            .orElse(null);
        Result base = w.stream().filter(x -> x.variant().equals("business-only") && x.param("clients").equals(c))
            .findFirst().orElse(null);
        rows.add(List.of(r.variant(), String.valueOf(c), Report.num(r.number("tx_per_s")),
            String.valueOf(r.metrics().get("slice_tx_per_s")), Report.ms(r.number("mean_tx_ms")),
            raw == null ? "–" : Report.ratio(r.number("tx_per_s"), raw.number("tx_per_s")),
            base == null ? "–" : Report.ratio(r.number("tx_per_s"), base.number("tx_per_s")),
            Report.ms(r.number("cpu_other")), Report.load(r.loadBeforeOrAfter())));
      }
      return rows;
    }
  }
}
