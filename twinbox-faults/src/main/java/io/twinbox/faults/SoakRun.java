package io.twinbox.faults;

import io.twinbox.faults.SoakJudge.MinuteSample;
import io.twinbox.faults.SoakJudge.ProcessSample;
import io.twinbox.faults.child.ConsumerMain;
import io.twinbox.faults.child.ProducerMain;
import io.twinbox.faults.child.RelayMain;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soak row (issue 21): the fault runs' pipeline — a producer JVM, two relay JVMs (through the
 * relay↔database and relay↔broker fault proxies), the testkit's Kafka broker, two inbox consumer
 * JVMs, the producer's database a fresh one on the shared PostgreSQL — at a steady rate for a
 * number of minutes, with one fault per minute (at a seeded second 20–40 of the minute, healed
 * before the next), and every minute a sample of each process (live heap after a full GC,
 * threads, open file descriptors, database sessions: {@link ResourceSampler}) and of the pipeline
 * (commit→apply latency p50/p99 of the effects applied in that minute, committed, pending, load
 * average). Then the faults are healed, everything drains, and the {@link FaultChecker} judges the
 * run as it judges a matrix row; {@link SoakJudge} judges whether the resources stayed flat.
 *
 * <p>Latency: from the outbox row's {@code created_at} (the producer's insert, {@code
 * clock_timestamp()}, milliseconds before its commit) to the effect row's {@code applied_at} (the
 * consumer's insert in its inbox transaction, {@code clock_timestamp()}); both on the same server's
 * clock. Sampler and faults run on one thread, so no sample meets a paused process.
 *
 * <p>A copy of {@link FaultRun}'s set-up, drain and facts rather than a use of it: a run there is
 * bounded (30 minutes of producer, 15 of nemesis) and its nemesis waits for 20% progress. Not
 * thread-safe; one run at a time.
 */
public final class SoakRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SoakRun.class);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration START = Duration.ofSeconds(90);
  private static final int AGGREGATES = 200;
  /** Share of producer transactions rolled back (half failing at COMMIT), as in the matrix rows but fewer. */
  static final double ROLLBACK = 0.05;
  /** The kinds the soak draws from, in turn (a seeded shuffle, repeated). */
  static final List<FaultKind> KINDS = List.of(FaultKind.RELAY_KILL, FaultKind.CONSUMER_KILL, FaultKind.RELAY_PAUSE,
      FaultKind.CONSUMER_PAUSE, FaultKind.PROXY_RESET, FaultKind.PROXY_LATENCY, FaultKind.PROXY_BLACKHOLE,
      FaultKind.DB_TERMINATE, FaultKind.LINK_RESET, FaultKind.LINK_LATENCY, FaultKind.LINK_BLACKHOLE,
      FaultKind.BROKER_KILL);

  /** One fault played: when (seconds after the producer started), what, on whom, how long it took. */
  record Fault(double elapsedSeconds, FaultKind kind, String target, long millis) {}

  /** What the run measured. */
  record Result(int minutes, double rate, long seed, long planned, boolean producerFinished, FaultVerdict verdict,
      List<Fault> faults,
      List<ProcessSample> samples, List<MinuteSample> pipeline, List<SoakJudge.Figure> figures, long fenced,
      long drainMillis, long totalMillis, Path dir) {
    boolean flat() {
      return figures.stream().allMatch(SoakJudge.Figure::flat);
    }
  }

  private final int minutes;
  private final double rate;
  private final long seed;
  private final KafkaBroker kafka;
  private final KafkaUnderTest broker;
  private final Path dir;
  private final Random random;
  private final String topic;
  private final List<ChildJvm> relays = new ArrayList<>();
  private final List<ChildJvm> consumers = new ArrayList<>();
  private final List<Path> journals = new ArrayList<>();
  private final List<Fault> faults = new ArrayList<>();
  private final List<ProcessSample> samples = new ArrayList<>();
  private final List<MinuteSample> pipeline = new ArrayList<>();
  private SharedPostgresStore producerDb;
  private PostgresDatabase consumerDb;
  private TcpProxy proxy;
  private TcpProxy link;
  private BrokerUnderTest.Destination destination;
  private ChildJvm producer;
  private Path rolledBackFile;
  private long t0;

  /** {@code rate}: committed events per second the producer aims at (it attempts a twentieth more: rollbacks). */
  public SoakRun(int minutes, double rate, long seed, KafkaBroker kafka, Path baseDir) {
    if (minutes < 1 || !(rate > 0)) {
      throw new IllegalArgumentException("minutes >= 1 and rate > 0, were " + minutes + ", " + rate);
    }
    this.minutes = minutes;
    this.rate = rate;
    this.seed = seed;
    this.kafka = kafka;
    this.broker = new KafkaUnderTest(kafka);
    this.random = new Random(seed ^ 0x50AC);
    this.topic = "soak-" + Long.toHexString(seed) + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    this.dir = baseDir.resolve("soak-" + broker.name() + "-" + minutes + "m-" + seed).toAbsolutePath();
  }

  Path dir() {
    return dir;
  }

  /** Plays the soak and checks it. */
  public Result run() throws Exception {
    long started = System.nanoTime();
    clearRunFolder();
    producerDb = new SharedPostgresStore();
    consumerDb = PostgresDatabase.create();
    JdbcStore.builder(producerDb.dataSource()).build().migrate();
    JdbcStore.builder(consumerDb.dataSource()).build().migrate();
    exec(producerDb.dataSource(), producerDb.ordersDdl());
    for (String ddl : producerDb.extraDdl()) {
      exec(producerDb.dataSource(), ddl);
    }
    // FaultRun's effect table plus applied_at, the end of the latency measured per minute.
    exec(consumerDb.dataSource(), "CREATE TABLE effect (message_id uuid PRIMARY KEY, aggregate_id text,"
        + " sequence bigint NOT NULL, n int NOT NULL, after_sequence bigint,"
        + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
    exec(consumerDb.dataSource(), "CREATE INDEX effect_aggregate ON effect (aggregate_id, sequence)");
    exec(consumerDb.dataSource(), "CREATE INDEX effect_applied ON effect (applied_at)");
    destination = broker.create(topic);
    link = TcpProxy.startOn(destination.linkProxyPort(), destination.linkHost(), destination.linkPort());
    String relayTransport = destination.relaySpec(link.port());
    proxy = TcpProxy.start(producerDb.host(), producerDb.port());
    String relayUrl = producerDb.relayUrl(proxy.port());
    for (int i = 0; i < 2; i++) {
      Path journal = dir.resolve("acks-relay-" + i + ".txt");
      journals.add(journal);
      relays.add(new ChildJvm("relay-" + i, dir, RelayMain.class.getName(), RelayMain.arguments(relayUrl,
          producerDb.user(), producerDb.password(), relayTransport, "relay-" + i, TTL.toMillis(), journal, false, 0),
          RelayMain.STARTED));
      consumers.add(new ChildJvm("consumer-" + i, dir, ConsumerMain.class.getName(), ConsumerMain.arguments(
          consumerDb.jdbcUrl(), consumerDb.user(), consumerDb.password(), destination.consumerSpec(),
          "faults-consumer", "consumer-" + i, dir.resolve("handler-runs-consumer-" + i + ".txt"), false),
          ConsumerMain.STARTED));
    }
    double attempted = rate / (1 - ROLLBACK);
    long events = Math.round(attempted * minutes * 60);
    rolledBackFile = dir.resolve("rolled-back.txt");
    Files.createFile(rolledBackFile);
    producer = new ChildJvm("producer", dir, ProducerMain.class.getName(), List.of(producerDb.jdbcUrl(),
        producerDb.user(), producerDb.password(), Long.toString(events), Integer.toString(AGGREGATES),
        "4", Double.toString(ROLLBACK), Double.toString(attempted), Long.toString(seed), "0",
        rolledBackFile.toString()), "never");
    List<ChildJvm> all = new ArrayList<>(relays);
    all.addAll(consumers);
    all.forEach(ChildJvm::launch);
    all.forEach(c -> c.awaitStarted(START));
    writeCsvHeaders();
    producer.launch();
    t0 = System.nanoTime();
    LOG.info("soak on {}/postgresql: {} minutes at {}/s committed ({} events attempted), a fault a minute, in {}",
        broker.name(), minutes, Math.round(rate), events, dir);

    List<FaultKind> plan = plan(minutes, random);
    long windowStart = System.currentTimeMillis();
    sample(0);
    for (int k = 1; k <= minutes; k++) {
      sleepUntil((k - 1) * 60_000L + 20_000 + random.nextInt(20_000));
      FaultKind kind = plan.get(k - 1);
      double at = elapsedSeconds();
      long f0 = System.nanoTime();
      String target = apply(kind);
      Fault fault = new Fault(at, kind, target, (System.nanoTime() - f0) / 1_000_000);
      faults.add(fault);
      append("faults.csv", String.format(Locale.ROOT, "%.1f,%s,%s,%d", at, kind, target, fault.millis()));
      LOG.info("soak minute {}: fault {} {} ({} ms)", k, kind, target, fault.millis());
      sleepUntil(k * 60_000L);
      long windowEnd = System.currentTimeMillis();
      minute(k, windowStart, windowEnd);
      windowStart = windowEnd;
      sample(k);
    }

    // The soak is bound by time, not by count: a producer that could not keep the rate (a loaded
    // machine) is stopped (SIGTERM) at the end; what it committed is the run's ledger.
    boolean producerFinished = awaitProducer(Duration.ofSeconds(30));
    if (!producerFinished) {
      LOG.warn("soak: the producer had not written its {} events at the end; stopped", events);
    }
    producer.terminate();
    long written = System.nanoTime();
    heal();
    drain();
    long drainMs = (System.nanoTime() - written) / 1_000_000;
    long fenced = 0;
    for (ChildJvm relay : relays) {
      relay.terminate();
      fenced += fencedOf(relay);
    }
    for (ChildJvm consumer : consumers) {
      consumer.terminate();
    }
    FaultVerdict verdict = FaultChecker.check(facts());
    List<SoakJudge.Figure> figures = SoakJudge.judge(samples, pipeline, minutes);
    Result result = new Result(minutes, rate, seed, events, producerFinished, verdict, List.copyOf(faults), List.copyOf(samples),
        List.copyOf(pipeline), figures, fenced, drainMs, (System.nanoTime() - started) / 1_000_000, dir);
    Files.writeString(dir.resolve("verdict.txt"), verdict.describe(20) + "\n");
    Files.writeString(dir.resolve("proxies.txt"), "relay<->db proxy: " + proxy.stats() + "; relay<->broker link: "
        + link.stats() + "\n");
    StringBuilder judged = new StringBuilder();
    figures.forEach(f -> judged.append(f.line()).append('\n'));
    Files.writeString(dir.resolve("flatness.md"), judged.toString());
    SoakPlot.write(result, dir.resolve("soak.png"));
    LOG.info("soak: {}; flat={}", verdict.line(), result.flat());
    return result;
  }

  /** One fault per minute: the kinds in a seeded order, each kind as often as the others (±1). */
  static List<FaultKind> plan(int minutes, Random random) {
    List<FaultKind> plan = new ArrayList<>();
    while (plan.size() < minutes) {
      List<FaultKind> round = new ArrayList<>(KINDS);
      Collections.shuffle(round, random);
      plan.addAll(round);
    }
    return plan.subList(0, minutes);
  }

  private String apply(FaultKind kind) {
    switch (kind) {
      case RELAY_KILL -> {
        ChildJvm relay = pick(relays);
        relay.kill9();
        ChildJvm.sleep(200 + random.nextInt(800));
        restart(relay);
        return relay.name;
      }
      case CONSUMER_KILL -> {
        ChildJvm consumer = pick(consumers);
        consumer.kill9();
        ChildJvm.sleep(200 + random.nextInt(800));
        restart(consumer);
        return consumer.name;
      }
      case RELAY_PAUSE -> {
        ChildJvm relay = pick(relays);
        relay.pause(TTL.multipliedBy(3).dividedBy(2));
        return relay.name;
      }
      case CONSUMER_PAUSE -> {
        ChildJvm consumer = pick(consumers);
        consumer.pause(Duration.ofSeconds(8)); // past the 6 s session timeout: a rebalance
        return consumer.name;
      }
      case PROXY_RESET -> {
        proxy.reset();
        return "relay<->db";
      }
      case PROXY_LATENCY -> {
        proxy.latency(200);
        try {
          ChildJvm.sleep(3_000);
        } finally {
          proxy.latency(0);
        }
        return "relay<->db 200ms for 3s";
      }
      case PROXY_BLACKHOLE -> {
        proxy.blackhole(true);
        try {
          ChildJvm.sleep(TTL.multipliedBy(2).toMillis());
        } finally {
          proxy.blackhole(false);
        }
        return "relay<->db " + TTL.multipliedBy(2).toMillis() + "ms";
      }
      case DB_TERMINATE -> {
        return "relay sessions=" + producerDb.terminateRelaySessions(proxy);
      }
      case LINK_RESET -> {
        link.reset();
        return "relay<->broker";
      }
      case LINK_LATENCY -> {
        link.latency(500);
        try {
          ChildJvm.sleep(3_000);
        } finally {
          link.latency(0);
        }
        return "relay<->broker 500ms for 3s";
      }
      case LINK_BLACKHOLE -> {
        link.blackhole(true);
        try {
          ChildJvm.sleep(TTL.multipliedBy(2).toMillis());
        } finally {
          link.blackhole(false);
        }
        return "relay<->broker " + TTL.multipliedBy(2).toMillis() + "ms";
      }
      case BROKER_KILL -> {
        broker.kill();
        ChildJvm.sleep(3_000 + random.nextInt(4_000));
        broker.restart();
        return "broker";
      }
      default -> throw new IllegalStateException("not a soak fault: " + kind);
    }
  }

  private ChildJvm pick(List<ChildJvm> children) {
    return children.get(random.nextInt(children.size()));
  }

  private void restart(ChildJvm child) {
    child.launch();
    child.awaitStarted(START);
  }

  // ---- sampling ----

  private void writeCsvHeaders() throws IOException {
    Files.writeString(dir.resolve("samples.csv"),
        "minute,elapsed_s,process,pid,heap_live_bytes,threads,fds,db_sessions\n");
    Files.writeString(dir.resolve("minutes.csv"),
        "minute,elapsed_s,applied,p50_ms,p99_ms,max_ms,committed_total,pending,load1\n");
    Files.writeString(dir.resolve("faults.csv"), "elapsed_s,kind,target,ms\n");
  }

  /** Every process's figures now. */
  private void sample(int minute) {
    double at = elapsedSeconds();
    Map<String, Integer> sessions = ResourceSampler.sessions(consumerDb.dataSource(),
        List.of(database(producerDb.jdbcUrl()), database(consumerDb.jdbcUrl())));
    List<ChildJvm> children = new ArrayList<>(relays);
    children.addAll(consumers);
    if (producer.isAlive()) {
      children.add(producer);
    }
    for (ChildJvm c : children) {
      long pid = c.pid();
      String app = c.name.equals("producer") ? "faults-producer"
          : c.name.startsWith("relay") ? "faults-relay-" + c.name : "faults-consumer-" + c.name;
      record(new ProcessSample(minute, at, c.name, pid, ResourceSampler.liveHeapAfterGc(pid),
          ResourceSampler.threads(pid), ResourceSampler.fileDescriptors(pid), sessions.getOrDefault(app, 0)));
    }
    if (kafka.isRunning()) {
      long pid = kafka.pid();
      record(new ProcessSample(minute, at, "broker", pid, ResourceSampler.liveHeapAfterGc(pid),
          ResourceSampler.threads(pid), ResourceSampler.fileDescriptors(pid), 0));
    }
  }

  private void record(ProcessSample s) {
    samples.add(s);
    append("samples.csv", String.format(Locale.ROOT, "%d,%.1f,%s,%d,%d,%d,%d,%d", s.minute(), s.elapsedSeconds(),
        s.process(), s.pid(), s.heapBytes(), s.threads(), s.fds(), s.dbSessions()));
  }

  /** The pipeline's minute {@code k}: latencies of the effects applied in [from, to). */
  private void minute(int k, long from, long to) {
    List<UUID> ids = new ArrayList<>();
    Map<UUID, Long> applied = new HashMap<>();
    try (Connection c = consumerDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT message_id, applied_at FROM effect WHERE applied_at >= ? AND applied_at < ?")) {
      ps.setTimestamp(1, new Timestamp(from));
      ps.setTimestamp(2, new Timestamp(to));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          UUID id = (UUID) rs.getObject(1);
          ids.add(id);
          applied.put(id, micros(rs.getTimestamp(2)));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the effects of minute " + k, e);
    }
    long[] latencies = new long[ids.size()];
    int n = 0;
    try (Connection c = producerDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT id, created_at FROM twinbox_outbox WHERE id = ANY (?)")) {
      Array array = c.createArrayOf("uuid", ids.toArray());
      ps.setArray(1, array);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          latencies[n++] = applied.get((UUID) rs.getObject(1)) - micros(rs.getTimestamp(2));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the outbox rows of minute " + k, e);
    }
    long[] sorted = java.util.Arrays.copyOf(latencies, n);
    java.util.Arrays.sort(sorted);
    long committed = count(producerDb.dataSource(), "SELECT count(*) FROM orders");
    long pending = count(producerDb.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'");
    MinuteSample m = new MinuteSample(k, elapsedSeconds(), n, SoakJudge.quantile(sorted, 0.50) / 1000.0,
        SoakJudge.quantile(sorted, 0.99) / 1000.0, n == 0 ? Double.NaN : sorted[n - 1] / 1000.0, committed, pending,
        ResourceSampler.loadAverage());
    pipeline.add(m);
    append("minutes.csv", String.format(Locale.ROOT, "%d,%.1f,%d,%.1f,%.1f,%.1f,%d,%d,%.2f", k, m.elapsedSeconds(),
        m.applied(), m.p50Millis(), m.p99Millis(), m.maxMillis(), committed, pending, m.load1()));
    LOG.info("soak minute {}: applied {} p50 {} ms p99 {} ms max {} ms, committed {}, pending {}, load {}", k, n,
        m.p50Millis(), m.p99Millis(), m.maxMillis(), committed, pending, m.load1());
  }

  private static long micros(Timestamp t) {
    return t.getTime() / 1000 * 1_000_000 + t.getNanos() / 1000;
  }

  private static String database(String jdbcUrl) {
    String path = URI.create(jdbcUrl.substring("jdbc:".length())).getPath();
    return path.substring(1);
  }

  private void append(String file, String line) {
    try {
      Files.writeString(dir.resolve(file), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot append to " + file, e);
    }
  }

  private double elapsedSeconds() {
    return (System.nanoTime() - t0) / 1e9;
  }

  private void sleepUntil(long millisAfterStart) {
    long wait = millisAfterStart - (System.nanoTime() - t0) / 1_000_000;
    if (wait > 0) {
      ChildJvm.sleep(wait);
    }
  }

  // ---- end of the run: as FaultRun ----

  private void clearRunFolder() throws IOException {
    if (Files.exists(dir)) {
      try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          if (!p.equals(dir)) {
            Files.delete(p);
          }
        }
      }
    }
    Files.createDirectories(dir);
  }

  /** Whether the producer wrote all its events within {@code grace}. */
  private boolean awaitProducer(Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    while (producer.count(ProducerMain.DONE) == 0) {
      if (!producer.isAlive()) {
        throw new IllegalStateException("producer died; log:\n" + producer.tail(40));
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      ChildJvm.sleep(500);
    }
    return true;
  }

  private void heal() {
    proxy.blackhole(false);
    proxy.dropReplies(false);
    proxy.latency(0);
    link.blackhole(false);
    link.dropReplies(false);
    link.latency(0);
    if (!broker.isRunning()) {
      broker.restart();
    }
    for (ChildJvm c : relays) {
      if (!c.isAlive()) {
        restart(c);
      }
    }
    for (ChildJvm c : consumers) {
      if (!c.isAlive()) {
        restart(c);
      }
    }
  }

  private void drain() {
    // Not FaultRun's 120 s: after a broker restart the consumer group can sit in a rebalance for
    // the whole rebalance timeout (max.poll.interval.ms, 300 s), applying nothing. The hour's soak
    // of seed 21 gave up there with 556,277 effects unapplied (lost 0: all were on the broker).
    Drain.untilApplied(producerDb.dataSource(), consumerDb.dataSource(), Duration.ofSeconds(600), 1_000, "soak");
  }

  private RunFacts facts() throws IOException {
    List<ExpectedEvent> committed = new ArrayList<>();
    forEachRow(producerDb.dataSource(), "SELECT message_id, aggregate_id, sequence FROM orders",
        rs -> committed.add(rs.getString(2) == null ? ExpectedEvent.unordered((UUID) rs.getObject(1),
            ProducerMain.AGGREGATE_TYPE) : ExpectedEvent.ordered((UUID) rs.getObject(1), ProducerMain.AGGREGATE_TYPE,
            rs.getString(2).intern(), rs.getLong(3))));
    List<UUID> rolledBack = Files.readAllLines(rolledBackFile).stream().filter(s -> !s.isBlank())
        .map(UUID::fromString).toList();
    Tap.Read read = destination.readAll(Duration.ofMinutes(15));
    Map<UUID, String> status = new HashMap<>();
    forEachRow(producerDb.dataSource(), "SELECT id, status FROM twinbox_outbox",
        rs -> status.put((UUID) rs.getObject(1), rs.getString(2).intern()));
    Set<UUID> acked = new HashSet<>();
    for (Path journal : journals) {
      if (Files.exists(journal)) {
        try (java.util.stream.Stream<String> lines = Files.lines(journal)) {
          lines.filter(l -> l.length() == 36).forEach(l -> acked.add(UUID.fromString(l)));
        }
      }
    }
    Map<UUID, Integer> effects = new HashMap<>();
    forEachRow(consumerDb.dataSource(), "SELECT message_id, n FROM effect",
        rs -> effects.put((UUID) rs.getObject(1), rs.getInt(2)));
    List<UUID> outOfOrder = new ArrayList<>();
    forEachRow(consumerDb.dataSource(), "SELECT message_id FROM effect WHERE after_sequence > sequence",
        rs -> outOfOrder.add((UUID) rs.getObject(1)));
    Set<UUID> parked = new HashSet<>();
    forEachRow(consumerDb.dataSource(), "SELECT message_id FROM twinbox_inbox_parked", rs -> {
      try {
        parked.add(UUID.fromString(rs.getString(1)));
      } catch (IllegalArgumentException e) {
        // a parked foreign record
      }
    });
    return new RunFacts(committed, rolledBack, read.deliveries(), status, acked, effects, outOfOrder, parked,
        Set.of(), read.foreign());
  }

  private interface RowHandler {
    void row(ResultSet rs) throws SQLException;
  }

  /** Streams the rows (a cursor of 10,000 at a time): the soak's tables hold millions. */
  private static void forEachRow(DataSource ds, String sql, RowHandler handler) {
    try (Connection c = ds.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.setFetchSize(10_000);
        try (ResultSet rs = st.executeQuery(sql)) {
          while (rs.next()) {
            handler.row(rs);
          }
        }
      } finally {
        c.commit();
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static long fencedOf(ChildJvm relay) {
    String line = relay.lastLine(RelayMain.FINAL);
    if (line == null) {
      line = relay.lastLine(RelayMain.STATS);
    }
    if (line == null) {
      return 0;
    }
    for (String kv : line.split(" ")) {
      if (kv.startsWith("fenced=")) {
        return Long.parseLong(kv.substring(7));
      }
    }
    return 0;
  }

  /** How many faults of each kind were played. */
  static Map<FaultKind, Integer> counts(List<Fault> faults) {
    Map<FaultKind, Integer> out = new EnumMap<>(FaultKind.class);
    faults.forEach(f -> out.merge(f.kind(), 1, Integer::sum));
    return out;
  }

  @Override
  public void close() {
    List<ChildJvm> all = new ArrayList<>(relays);
    all.addAll(consumers);
    if (producer != null) {
      all.add(producer);
    }
    for (ChildJvm c : all) {
      try {
        if (c.isAlive()) {
          c.kill9();
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot kill {}", c.name, e);
      }
    }
    if (proxy != null) {
      proxy.close();
    }
    if (link != null) {
      link.close();
    }
    if (destination != null) {
      destination.close();
    }
    if (producerDb != null) {
      producerDb.close();
    }
    if (consumerDb != null) {
      consumerDb.close();
    }
  }

  private static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long count(DataSource ds, String sql) {
    return Drain.count(ds, sql);
  }
}
