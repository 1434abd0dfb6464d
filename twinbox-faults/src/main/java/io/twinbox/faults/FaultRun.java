package io.twinbox.faults;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.faults.child.ConsumerMain;
import io.twinbox.faults.child.ProducerMain;
import io.twinbox.faults.child.RelayMain;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scenario against a broker and a producer store (PostgreSQL or MariaDB, see {@link
 * ProducerStore}): a producer JVM, two relay JVMs (reaching the database, and a shared broker,
 * through {@link TcpProxy}s) and two consumer JVMs (inbox into their own PostgreSQL database),
 * the {@link Nemesis}, a full drain with everything healed, and the {@link FaultChecker}.
 *
 * <p>Not thread-safe: one run at a time; the nemesis runs on its own thread.
 */
public final class FaultRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FaultRun.class);
  /**
   * The relays' lease TTL: short, so that the relay faults (kill, SIGSTOP, cut-off) are followed by a
   * take-over within seconds. Renewed every ttl/3 (667 ms), usable for 0.8 ttl (1.6 s) after a
   * renewal was sent: a relay process or its database path that stands still for 1.33 s or more
   * can lose a lease, and for 2.67 s or more loses it while the other relay runs. The other relay
   * then fences its in-flight completion and publishes those messages again (dup deliveries) —
   * configured behaviour, also in rows without faults on a loaded machine; {@link RelayStalls}
   * puts the stalls next to the fenced figure.
   */
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration START = Duration.ofSeconds(90);
  /** How long an armed relay may take to reach its next completion (forced B2). */
  static final int HALT_WAIT_SECONDS = 15;
  private static final int AGGREGATES = 200;
  /** Estimated seconds per fault, including its heal and the gap before it. */
  private static final double SECONDS_PER_FAULT = 5.0;
  /** Default ceiling of the producer's rate (events/s), low enough for the smoke tier on a busy CI box. */
  public static final double DEFAULT_MAX_RATE = 400;
  /** A8: the producer's writer threads when the row contends for a few aggregates. */
  static final int CONTENDING_WRITERS = 20;
  /** D8: the hot counter rows the SERIALIZABLE consumers' handlers bump, one per aggregate hash. */
  static final int HOT_ROWS = ConsumerMain.HOT_ROWS;

  private final Scenario scenario;
  private final int events;
  private final long seed;
  private final BrokerUnderTest broker;
  private final String storeKind;
  private final Path dir;
  private final double maxRate;
  private final String topic;
  private final List<ChildJvm> relays = new ArrayList<>();
  private final List<ChildJvm> consumers = new ArrayList<>();
  private final List<Path> journals = new ArrayList<>();
  private final List<Path> handlerJournals = new ArrayList<>();
  private final List<Observation> observations = new java.util.concurrent.CopyOnWriteArrayList<>();
  private ProducerStore producerDb;
  private PostgresDatabase consumerDb;
  private TcpProxy proxy;
  private TcpProxy link;
  private BrokerUnderTest.Destination destination;
  private ChildJvm producer;
  private boolean producerDone;
  private Path rolledBackFile;
  private Nemesis nemesis;
  private long relayPeakRssKb;

  public FaultRun(Scenario scenario, int events, long seed, BrokerUnderTest broker, Path baseDir) {
    this(scenario, events, seed, broker, ProducerStore.POSTGRESQL, baseDir, DEFAULT_MAX_RATE);
  }

  /**
   * A run whose producer writes at most {@code maxRate} events/s. The producer spreads the events
   * over the time the faults need (at least 20 s), so a large {@code events} only speeds it up to
   * this ceiling; the full matrix raises it so that 100,000 events per row take minutes, not hours.
   */
  public FaultRun(Scenario scenario, int events, long seed, BrokerUnderTest broker, String store, Path baseDir,
      double maxRate) {
    ProducerStore.supported(store); // validates the name
    if (!(maxRate > 0)) {
      throw new IllegalArgumentException("maxRate must be > 0 events/s, was " + maxRate);
    }
    this.maxRate = maxRate;
    this.scenario = scenario;
    this.events = events;
    this.seed = seed;
    this.broker = broker;
    this.storeKind = store;
    byte[] b = new byte[4];
    new Random(seed).nextBytes(b);
    this.topic = "faults-" + scenario.id().toLowerCase() + "-" + HexFormat.of().formatHex(b)
        + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    this.dir = baseDir.resolve(scenario.id() + "-" + broker.name()
        + (store.equals(ProducerStore.POSTGRESQL) ? "" : "-" + store) + "-" + seed).toAbsolutePath();
  }

  /** Plays the scenario and checks it. */
  public ScenarioResult run() throws Exception {
    long started = System.nanoTime();
    clearRunFolder();
    producerDb = ProducerStore.open(storeKind, scenario, dir);
    consumerDb = PostgresDatabase.create();
    JdbcStore.builder(producerDb.dataSource()).build().migrate();
    if (scenario.commitNotifications()) {
      JdbcStore.builder(producerDb.dataSource()).build().setCommitNotifications(true);
    }
    JdbcStore.builder(consumerDb.dataSource()).build().migrate();
    exec(producerDb.dataSource(), producerDb.ordersDdl());
    for (String ddl : producerDb.extraDdl()) {
      exec(producerDb.dataSource(), ddl);
    }
    exec(consumerDb.dataSource(), "CREATE TABLE effect (message_id uuid PRIMARY KEY, aggregate_id text,"
        + " sequence bigint NOT NULL, n int NOT NULL, after_sequence bigint,"
        + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
    exec(consumerDb.dataSource(), "CREATE TABLE hot (id int PRIMARY KEY, n bigint NOT NULL)");
    exec(consumerDb.dataSource(), "INSERT INTO hot SELECT g, 0 FROM generate_series(0, " + (HOT_ROWS - 1) + ") g");
    exec(consumerDb.dataSource(), "CREATE INDEX effect_aggregate ON effect (aggregate_id, sequence)");
    destination = broker.create(topic);
    link = destination.linkHost() == null ? null
        : TcpProxy.startOn(destination.linkProxyPort(), destination.linkHost(), destination.linkPort());
    String relayTransport = destination.relaySpec(link == null ? 0 : link.port());
    proxy = TcpProxy.start(producerDb.host(), producerDb.port());
    String relayUrl = producerDb.relayUrl(proxy.port());

    for (int i = 0; i < 2; i++) {
      Path journal = dir.resolve("acks-relay-" + i + ".txt");
      journals.add(journal);
      relays.add(new ChildJvm("relay-" + i, dir, RelayMain.class.getName(), RelayMain.arguments(relayUrl,
          producerDb.user(), producerDb.password(), relayTransport, "relay-" + i, TTL.toMillis(), journal,
          scenario.walRelay(), scenario.relayMaxAttempts()),
          RelayMain.STARTED, with(SkewedClock.environment(relaySkew(i)), Language.environment(scenario))));
      Path handlerJournal = dir.resolve("handler-runs-consumer-" + i + ".txt");
      handlerJournals.add(handlerJournal);
      consumers.add(new ChildJvm("consumer-" + i, dir, ConsumerMain.class.getName(), ConsumerMain.arguments(
          consumerDb.jdbcUrl(), consumerDb.user(), consumerDb.password(), destination.consumerSpec(),
          "faults-consumer", "consumer-" + i, handlerJournal, scenario.serializableConsumers()),
          ConsumerMain.STARTED, Language.environment(scenario)));
    }
    double writeSeconds = Math.max(20, scenario.faultCount(supported()) * SECONDS_PER_FAULT / 0.75);
    double rate = Math.min(maxRate, events / writeSeconds);
    rolledBackFile = dir.resolve("rolled-back.txt");
    Files.deleteIfExists(rolledBackFile);
    Files.createFile(rolledBackFile);
    producer = new ChildJvm("producer", dir, ProducerMain.class.getName(), List.of(producerDb.jdbcUrl(),
        producerDb.user(), producerDb.password(), Integer.toString(events),
        Integer.toString(scenario.contendedAggregates() > 0 ? scenario.contendedAggregates() : AGGREGATES),
        scenario.contendedAggregates() > 0 ? Integer.toString(CONTENDING_WRITERS) : "4",
        Double.toString(scenario.rollbackRate()), Double.toString(rate), Long.toString(seed),
        Double.toString(scenario.poisonRate()), rolledBackFile.toString()), "never", Language.environment(scenario));
    if (scenario.databaseLocale() != null) {
      LOG.info("the producer's database answers in {}: {}", scenario.databaseLocale(),
          Language.verify(producerDb.dataSource()));
    }

    List<ChildJvm> all = new ArrayList<>(relays);
    all.addAll(consumers);
    all.forEach(ChildJvm::launch);
    all.forEach(c -> c.awaitStarted(START));
    for (int i = 0; i < relays.size() && scenario.relayClockSkewSeconds() != 0; i++) {
      LOG.info("{}'s clock is {} s off", relays.get(i).name, SkewedClock.verify(relays.get(i), relaySkew(i)));
    }
    producer.launch();
    LOG.info("{} on {}/{}: {} events at {}/s, {} faults, destination {}, logs in {}", scenario.id(),
        broker.name(), producerDb.kind(), events, Math.round(rate), scenario.faultCount(supported()), topic, dir);

    nemesis = new Nemesis(this, scenario, seed);
    long expectedCommitted = Math.round(events * (1 - scenario.rollbackRate()));
    AtomicReference<Throwable> nemesisFailure = new AtomicReference<>();
    Thread nemesisThread = new Thread(() -> {
      try {
        nemesis.run(() -> count(producerDb.dataSource(),
            "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") >= expectedCommitted / 5,
            Duration.ofMillis(1_000));
      } catch (Throwable e) {
        nemesisFailure.set(e);
      }
    }, "nemesis");
    nemesisThread.start();

    awaitProducer();
    long written = System.nanoTime();
    nemesisThread.join(Duration.ofMinutes(15).toMillis());
    if (nemesisThread.isAlive()) {
      throw new IllegalStateException("the nemesis did not finish");
    }
    if (nemesisFailure.get() != null) {
      throw new IllegalStateException("the nemesis failed", nemesisFailure.get());
    }
    heal();
    drain();
    for (ChildJvm relay : relays) {
      relayPeakRssKb = Math.max(relayPeakRssKb, relay.peakRssKb());
    }
    long drainMs = (System.nanoTime() - written) / 1_000_000;
    long fenced = 0;
    List<String> relayLines = new ArrayList<>();
    for (ChildJvm relay : relays) {
      relay.terminate();
      fenced += fencedOf(relay);
      relayLines.addAll(relay.lines());
    }
    RelayStalls stalls = RelayStalls.of(relayLines);
    for (ChildJvm consumer : consumers) {
      consumer.terminate();
    }
    FaultVerdict verdict = FaultChecker.check(facts());
    if (verdict.committed() == 0 && expectedCommitted > 0) {
      throw new IllegalStateException("the producer committed nothing: a vacuous run; producer log:\n"
          + producer.tail(20));
    }
    RowFigures figures = RowChecks.judge(this, verdict);
    ScenarioResult result = new ScenarioResult(scenario, broker.name(), storeKind, events, seed, verdict,
        nemesis.applied(), fenced, stalls, drainMs, (System.nanoTime() - started) / 1_000_000, figures);
    Files.writeString(dir.resolve("nemesis.txt"), String.join("\n", nemesis.log()) + "\n");
    Files.writeString(dir.resolve("verdict.txt"), verdict.describe(20) + "\n");
    String through = "relay<->db proxy: " + proxy.stats() + (link == null ? "" : "; relay<->broker link: " + link.stats());
    Files.writeString(dir.resolve("proxies.txt"), through + "\n");
    LOG.info("{} on {}: {}", scenario.id(), broker.name(), through);
    LOG.info("{}", result.line());
    return result;
  }

  /**
   * An empty run folder. The children's logs are appended to across restarts, so a folder left by
   * an earlier run of the same row, broker, store and seed would hand this run its start and done
   * markers (a run that checked nothing and passed).
   */
  private void clearRunFolder() throws IOException {
    SmallDisk.unmountStale(dir);
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

  // ---- used by the nemesis and the row checks ----

  Scenario scenario() {
    return scenario;
  }

  /** Records what the nemesis saw while it played a row's own fault. */
  void observe(Observation observation) {
    observations.add(observation);
  }

  /** The observations of one kind, in order. */
  <T extends Observation> List<T> observations(Class<T> kind) {
    return observations.stream().filter(kind::isInstance).map(kind::cast).toList();
  }

  /** The relay processes' largest peak RSS (KiB) at the end of the drain (of their current starts). */
  long relayPeakRssKb() {
    return relayPeakRssKb;
  }

  /** How many faults of {@code kind} the nemesis played so far. */
  int faultsPlayed(FaultKind kind) {
    return nemesis == null ? 0 : nemesis.applied().getOrDefault(kind, 0);
  }

  /** The consumers' journals of poison handler runs (D5, D6). */
  List<Path> handlerJournals() {
    return handlerJournals;
  }

  DataSource consumerDataSource() {
    return consumerDb.dataSource();
  }

  /** The aggregate a seeded pick of the nemesis names: one of the producer's. */
  static String aggregate(long pick) {
    return "order-" + Math.floorMod(pick, AGGREGATES);
  }

  /** Rows still PENDING in the producer's outbox. */
  long pending() {
    return count(producerDb.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'");
  }

  /**
   * Writes one event and its ledger row in a transaction of its own, as the producer does: ordered
   * in {@code aggregate}, or unordered when it is null; {@code poison} marks it as one the
   * consumer must park (D5, D6), never apply.
   */
  UUID writeEvent(String type, String aggregate, String payload, boolean poison) {
    Outbox outbox = Outbox.builder(JdbcStore.builder(producerDb.dataSource()).build()).build();
    try (Connection c = producerDb.dataSource().getConnection()) {
      c.setAutoCommit(false);
      OutboxEvent.Builder event = OutboxEvent.builder(type, 1).payload(payload);
      UUID id = outbox.write(c, (aggregate == null ? event.unordered(ProducerMain.AGGREGATE_TYPE)
          : event.aggregate(ProducerMain.AGGREGATE_TYPE, aggregate)).build());
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (message_id, aggregate_id, sequence,"
          + " poison) SELECT id, aggregate_id, sequence, ? FROM twinbox_outbox WHERE id = ?")) {
        ps.setBoolean(1, poison);
        ps.setObject(2, producerDb.id(id));
        ps.executeUpdate();
      }
      c.commit();
      return id;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot write a " + type + " event", e);
    }
  }

  /** An outbox row's status, attempts, last error and sequence; null when there is no such row. */
  OutboxRow outboxRow(UUID id) {
    try (Connection c = producerDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT status, attempts, last_error, sequence FROM twinbox_outbox WHERE id = ?")) {
      ps.setObject(1, producerDb.id(id));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new OutboxRow(id, rs.getString(1), rs.getInt(2), rs.getString(3), rs.getLong(4)) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read outbox row " + id, e);
    }
  }

  /** The rows of {@code aggregate} after {@code sequence}. */
  List<OutboxRow> laterRows(String aggregate, long sequence) {
    List<OutboxRow> out = new ArrayList<>();
    try (Connection c = producerDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT id, status, attempts, last_error, sequence FROM twinbox_outbox WHERE aggregate_type = ?"
            + " AND aggregate_id = ? AND sequence > ? ORDER BY sequence")) {
      ps.setString(1, ProducerMain.AGGREGATE_TYPE);
      ps.setString(2, aggregate);
      ps.setLong(3, sequence);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new OutboxRow(UUID.fromString(rs.getString(1)), rs.getString(2), rs.getInt(3), rs.getString(4),
              rs.getLong(5)));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the rows of " + aggregate, e);
    }
    return out;
  }

  /** One outbox row as the nemesis sees it. */
  record OutboxRow(UUID id, String status, int attempts, String lastError, long sequence) {}

  /** The ids some relay journaled as acknowledged by the broker, so far. */
  Set<UUID> ackedSoFar() {
    Set<UUID> acked = new HashSet<>();
    for (Path journal : journals) {
      try {
        if (Files.exists(journal)) {
          for (String line : Files.readAllLines(journal)) {
            if (line.length() == 36) {
              acked.add(UUID.fromString(line));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return acked;
  }

  /** The producer's outbox store (for the admin API: an operator's retry, C5). */
  JdbcStore outboxStore() {
    return JdbcStore.builder(producerDb.dataSource()).build();
  }

  Duration leaseTtl() {
    return TTL;
  }

  List<ChildJvm> relays() {
    return relays;
  }

  List<ChildJvm> consumers() {
    return consumers;
  }

  BrokerUnderTest brokerUnderTest() {
    return broker;
  }

  java.util.Set<FaultKind> supported() {
    return supported(broker, storeKind);
  }

  /** The faults playable on {@code broker} with a producer store of kind {@code store}. */
  static Set<FaultKind> supported(BrokerUnderTest broker, String store) {
    Set<FaultKind> both = EnumSet.copyOf(broker.supported());
    both.retainAll(ProducerStore.supported(store));
    return both;
  }

  ProducerStore store() {
    return producerDb;
  }

  BrokerUnderTest.Destination destination() {
    return destination;
  }

  /** The relay ↔ broker fault proxy. */
  TcpProxy link() {
    if (link == null) {
      throw new IllegalStateException(broker.name() + " has no relay<->broker proxy");
    }
    return link;
  }

  TcpProxy proxy() {
    return proxy;
  }

  private static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
    Map<String, String> both = new HashMap<>(a);
    both.putAll(b);
    return both;
  }

  /** Row B7R: relay-0's clock ahead by the scenario's skew, relay-1's behind. */
  private int relaySkew(int relay) {
    return relay == 0 ? scenario.relayClockSkewSeconds() : -scenario.relayClockSkewSeconds();
  }

  /**
   * FAULTS B2, forced: arms {@code relay}'s halt before its next completion and waits until it has
   * halted there (its batch acked by the broker, its rows still pending); a relay that reaches no
   * completion within {@value #HALT_WAIT_SECONDS} s is killed -9 instead. Returns whether it halted
   * there; the caller restarts the relay.
   */
  boolean haltBeforeCompletion(ChildJvm relay) {
    Path trigger = RelayMain.haltTrigger(journals.get(relays.indexOf(relay)));
    try {
      Files.writeString(trigger, "halt");
      boolean halted = relay.awaitExit(Duration.ofSeconds(HALT_WAIT_SECONDS));
      if (!halted) {
        relay.kill9();
      }
      return halted;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot arm " + trigger, e);
    } finally {
      try {
        Files.deleteIfExists(trigger);
      } catch (IOException e) {
        LOG.warn("cannot remove {}", trigger, e);
      }
    }
  }

  /**
   * FAULTS D2, forced: arms {@code consumer}'s halt after its next commit that applied effects and
   * waits until it has halted there; one that reaches no such commit within {@value
   * #HALT_WAIT_SECONDS} s is killed -9 instead. Returns whether it halted there; the caller
   * restarts it.
   */
  boolean haltAfterCommit(ChildJvm consumer) {
    Path trigger = ConsumerMain.haltTrigger(handlerJournals.get(consumers.indexOf(consumer)));
    try {
      Files.writeString(trigger, "halt");
      boolean halted = consumer.awaitExit(Duration.ofSeconds(HALT_WAIT_SECONDS));
      if (!halted) {
        consumer.kill9();
      }
      return halted;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot arm " + trigger, e);
    } finally {
      try {
        Files.deleteIfExists(trigger);
      } catch (IOException e) {
        LOG.warn("cannot remove {}", trigger, e);
      }
    }
  }

  void restart(ChildJvm child) {
    child.launch();
    child.awaitStarted(START);
  }

  /**
   * FAULTS G4: drops the WAL relays' slot (they are down; a walsender of a killed one may linger a
   * moment). Returns how long it took to get it.
   */
  long dropSlot() {
    JdbcStore store = JdbcStore.builder(producerDb.dataSource()).build();
    long t0 = System.nanoTime();
    while (true) {
      try {
        if (!store.dropWalSlot(RelayMain.WAL_SLOT)) {
          throw new IllegalStateException("no slot " + RelayMain.WAL_SLOT + " to drop");
        }
        return (System.nanoTime() - t0) / 1_000_000;
      } catch (io.twinbox.ChangeFeedException e) {
        if (e.problem() != io.twinbox.ChangeFeedException.Problem.SLOT_IN_USE
            || System.nanoTime() - t0 > Duration.ofSeconds(30).toNanos()) {
          throw e;
        }
        ChildJvm.sleep(50);
      }
    }
  }

  int terminateRelaySessions() {
    return producerDb.terminateRelaySessions(proxy);
  }

  /** FAULTS B11: an outbox row and its aggregate's counter held by an open transaction. */
  String holdLongTransaction(Duration hold, long pick) {
    Outbox outbox = Outbox.builder(JdbcStore.builder(producerDb.dataSource()).build()).build();
    String aggregate = "order-" + Math.floorMod(pick, AGGREGATES);
    try (Connection c = producerDb.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder("OrderChanged", 1).aggregate(ProducerMain.AGGREGATE_TYPE,
          aggregate).payload("{\"held\":true}").build());
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (message_id, aggregate_id, sequence,"
          + " poison) SELECT id, aggregate_id, sequence, false FROM twinbox_outbox WHERE id = ?")) {
        ps.setObject(1, producerDb.id(id));
        ps.executeUpdate();
      }
      ChildJvm.sleep(hold.toMillis());
      c.commit();
      return aggregate + " " + hold.toMillis() + "ms";
    } catch (SQLException e) {
      throw new IllegalStateException("long transaction failed", e);
    }
  }

  // ---- drain and facts ----

  private void awaitProducer() {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (true) {
      // Under the producer's lock: a kill by the nemesis (killProducer) is never mistaken for a death.
      synchronized (producer) {
        if (producer.count(ProducerMain.DONE) > 0) {
          producerDone = true;
          producer.terminate();
          return;
        }
        if (!producer.isAlive()) {
          throw new IllegalStateException("producer died; log:\n" + producer.tail(40));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("producer did not finish in 30 minutes");
      }
      ChildJvm.sleep(200);
    }
  }

  /**
   * E1: {@code kill -9} of the producer, started again after {@code downMillis}; it goes on with the
   * events left. False (nothing done) once it has written everything.
   */
  boolean killProducer(long downMillis) {
    synchronized (producer) {
      if (producerDone || producer.count(ProducerMain.DONE) > 0) {
        return false;
      }
      producer.kill9();
      ChildJvm.sleep(downMillis);
      producer.launch();
      return true;
    }
  }

  /** Every process running, the proxy passing, the broker up. */
  private void heal() {
    proxy.blackhole(false);
    proxy.dropReplies(false);
    proxy.latency(0);
    if (link != null) {
      link.blackhole(false);
      link.dropReplies(false);
      link.latency(0);
    }
    if (!broker.isRunning()) {
      broker.restart();
    }
    if (!producerDb.isRunning()) {
      producerDb.restart();
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

  /** Waits until nothing is pending and the consumers applied or parked everything. */
  private void drain() {
    Drain.untilApplied(producerDb.dataSource(), consumerDb.dataSource(), Duration.ofSeconds(120), 250, scenario.id());
  }

  private RunFacts facts() throws IOException {
    List<ExpectedEvent> committed = new ArrayList<>();
    Set<UUID> poison = new HashSet<>();
    for (Map<String, Object> row : rows(producerDb.dataSource(),
        "SELECT message_id, aggregate_id, sequence, poison FROM orders")) {
      UUID id = uuid(row.get("message_id"));
      String aggregate = (String) row.get("aggregate_id");
      committed.add(aggregate == null ? ExpectedEvent.unordered(id, ProducerMain.AGGREGATE_TYPE)
          : ExpectedEvent.ordered(id, ProducerMain.AGGREGATE_TYPE, aggregate, (Long) row.get("sequence")));
      if (truth(row.get("poison"))) {
        poison.add(id);
      }
    }
    List<UUID> rolledBack = Files.readAllLines(rolledBackFile).stream().filter(s -> !s.isBlank())
        .map(UUID::fromString).toList();
    Tap.Read read = destination.readAll(Duration.ofMinutes(2));
    Map<UUID, String> status = new HashMap<>();
    for (Map<String, Object> row : rows(producerDb.dataSource(), "SELECT id, status FROM twinbox_outbox")) {
      status.put(uuid(row.get("id")), (String) row.get("status"));
    }
    Set<UUID> acked = ackedSoFar();
    Map<UUID, Integer> effects = new HashMap<>();
    for (Map<String, Object> row : rows(consumerDb.dataSource(), "SELECT message_id, n FROM effect")) {
      effects.put((UUID) row.get("message_id"), (Integer) row.get("n"));
    }
    List<UUID> outOfOrder = new ArrayList<>();
    for (Map<String, Object> row : rows(consumerDb.dataSource(),
        "SELECT message_id FROM effect WHERE after_sequence > sequence")) {
      outOfOrder.add((UUID) row.get("message_id"));
    }
    Set<UUID> parked = new HashSet<>();
    for (Map<String, Object> row : rows(consumerDb.dataSource(), "SELECT message_id FROM twinbox_inbox_parked")) {
      try {
        parked.add(UUID.fromString((String) row.get("message_id")));
      } catch (IllegalArgumentException e) {
        // A parked foreign record: its id is where it was, not a message id.
      }
    }
    return new RunFacts(committed, rolledBack, read.deliveries(), status, acked, effects, outOfOrder, parked,
        poison, read.foreign());
  }

  /** A {@code uuid} (PostgreSQL) or its text ({@code VARCHAR(36)} on MariaDB). */
  private static UUID uuid(Object value) {
    return value instanceof UUID u ? u : UUID.fromString(value.toString());
  }

  /** A {@code boolean}, or MariaDB's {@code TINYINT(1)}. */
  private static boolean truth(Object value) {
    return value instanceof Boolean b ? b : ((Number) value).intValue() != 0;
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

  @Override
  public void close() {
    for (ChildJvm c : relays) {
      killQuietly(c);
    }
    for (ChildJvm c : consumers) {
      killQuietly(c);
    }
    if (producer != null) {
      killQuietly(producer);
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

  private static void killQuietly(ChildJvm c) {
    try {
      if (c.isAlive()) {
        c.kill9();
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot kill {}", c.name, e);
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

  private static List<Map<String, Object>> rows(DataSource ds, String sql) {
    List<Map<String, Object>> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= columns; i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        out.add(row);
      }
    } catch (SQLException e) {
      throw new UncheckedIOException(new IOException(sql, e));
    }
    return out;
  }
}
