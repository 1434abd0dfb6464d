package io.twinbox.faults;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A named row of the FAULTS.md matrix as the runner plays it: the faults the nemesis may choose,
 * how many it applies (0 = none), or every kind once in a seeded order ({@code eachOnce}).
 *
 * @param id the matrix row, e.g. {@code B1}
 * @param title what the row is about
 * @param kinds the faults to draw from
 * @param faults how many faults to apply
 * @param eachOnce apply every kind exactly once instead of drawing {@code faults}
 * @param rollbackRate share of transactions rolled back (A1)
 * @param poisonRate share of events written as poison (D4)
 * @param walRelay the relays stream the outbox from PostgreSQL's WAL ({@code RelayMode.WAL}, the G
 *     rows) on a private {@code wal_level=logical} cluster, instead of polling
 * @param relayClockSkewSeconds the relay hosts' clocks are off by this much for the whole run,
 *     relay-0 ahead and relay-1 behind (libfaketime; 0 for true clocks): leases must not care,
 *     since they are judged on the database's clock
 * @param killFloor 0, or (E1) the schedule is at least this many process kills ({@link
 *     FaultKind#KILLS}) plus every other kind of the row twice, shuffled, instead of {@code faults}
 *     random draws
 * @param commitNotifications the producer's outbox sends commit notifications and the relays
 *     LISTEN (A9; PostgreSQL only), instead of the default polling alone
 * @param databaseLocale null, or the {@code lc_messages} of a private PostgreSQL cluster of the row
 *     and the locale of every child JVM, so that every error message the library sees is in that
 *     language (B8DE: errors must be told apart by SQLSTATE, never by text)
 * @param relayMaxAttempts 0 for the relay's default {@code RetryPolicy}, or its {@code maxAttempts}
 *     (C2: a long outage must not spend them)
 * @param serializableConsumers the consumers run their transactions at SERIALIZABLE and their
 *     handler also bumps one of a few hot counter rows (D8: serialization failures and deadlocks
 *     must be retried, never counted against the message)
 * @param contendedAggregates 0 for the producer's usual 4 writers over 200 aggregates, or (A8) 20
 *     writers over this many aggregates: every transaction contends for the same counter rows
 */
public record Scenario(String id, String title, Set<FaultKind> kinds, int faults, boolean eachOnce,
    double rollbackRate, double poisonRate, boolean walRelay, int relayClockSkewSeconds, int killFloor,
    boolean commitNotifications, String databaseLocale, int relayMaxAttempts, boolean serializableConsumers,
    int contendedAggregates) {

  /** A row whose relays poll on true clocks, with random draws. */
  public Scenario(String id, String title, Set<FaultKind> kinds, int faults, boolean eachOnce,
      double rollbackRate, double poisonRate, boolean walRelay) {
    this(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay, 0, 0, false, null, 0, false, 0);
  }

  /** This row with the relays' clocks {@code seconds} off (relay-0 ahead, relay-1 behind). */
  Scenario withRelayClockSkew(int seconds) {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay, seconds, killFloor,
        commitNotifications, databaseLocale, relayMaxAttempts, serializableConsumers,
        contendedAggregates);
  }

  /** This row with E1's schedule: at least {@code kills} process kills plus every other kind twice. */
  Scenario withKillFloor(int kills) {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, kills, commitNotifications, databaseLocale, relayMaxAttempts, serializableConsumers,
        contendedAggregates);
  }

  /** This row with commit notifications on (A9). */
  Scenario withCommitNotifications() {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, killFloor, true, databaseLocale, relayMaxAttempts, serializableConsumers,
        contendedAggregates);
  }

  /** This row with the database and the JVMs speaking {@code locale} (e.g. {@code de_DE.UTF-8}). */
  Scenario withDatabaseLocale(String locale) {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, killFloor, commitNotifications, locale, relayMaxAttempts, serializableConsumers,
        contendedAggregates);
  }

  /** This row with the relays' {@code RetryPolicy.maxAttempts} set to {@code attempts}. */
  Scenario withRelayMaxAttempts(int attempts) {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, killFloor, commitNotifications, databaseLocale, attempts, serializableConsumers,
        contendedAggregates);
  }

  /** This row with 20 producer writers contending for {@code aggregates} aggregates (A8). */
  Scenario withContendedAggregates(int aggregates) {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, killFloor, commitNotifications, databaseLocale, relayMaxAttempts, serializableConsumers,
        aggregates);
  }

  /** This row with SERIALIZABLE consumers whose handler bumps hot counter rows (D8). */
  Scenario withSerializableConsumers() {
    return new Scenario(id, title, kinds, faults, eachOnce, rollbackRate, poisonRate, walRelay,
        relayClockSkewSeconds, killFloor, commitNotifications, databaseLocale, relayMaxAttempts, true,
        contendedAggregates);
  }

  static Scenario row(String id, String title, int faults, FaultKind... kinds) {
    Set<FaultKind> set = kinds.length == 0 ? EnumSet.noneOf(FaultKind.class) : EnumSet.of(kinds[0], kinds);
    return new Scenario(id, title, set, faults, false, 0.10, 0.0, false);
  }

  /** A row played with WAL relays (PostgreSQL only). */
  static Scenario walRow(String id, String title, int faults, FaultKind... kinds) {
    return new Scenario(id, title, EnumSet.of(kinds[0], kinds), faults, false, 0.10, 0.0, true);
  }

  /**
   * A polling row played again with WAL relays (acceptance 8 of issue 15): same faults, the id
   * {@code <row>-WAL}, the title prefixed with "WAL relay:".
   */
  static Scenario onWal(Scenario polling) {
    Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
    kinds.addAll(polling.kinds());
    kinds.removeAll(FaultKind.POLLING_ONLY);
    return new Scenario(polling.id() + "-WAL", "WAL relay: " + polling.title(), kinds, polling.faults(),
        polling.eachOnce(), polling.rollbackRate(), polling.poisonRate(), true, polling.relayClockSkewSeconds(),
        polling.killFloor(), polling.commitNotifications(), polling.databaseLocale(), polling.relayMaxAttempts(),
        polling.serializableConsumers(), polling.contendedAggregates());
  }

  /** The rows of the matrix the runner plays, in order. */
  public static List<Scenario> matrix() {
    List<Scenario> polling = pollingRows();
    List<Scenario> all = new ArrayList<>(polling);
    polling.stream().filter(r -> WAL_RELAY_ROWS.contains(r.id())).map(Scenario::onWal).forEach(all::add);
    all.add(walRow("G1", "WAL relay kill -9 between broker ack and confirmed LSN", 6, FaultKind.RELAY_KILL));
    all.add(walRow("G4", "WAL relay: slot dropped while the relays are down", 2, FaultKind.SLOT_DROP));
    return List.copyOf(all);
  }

  /** Row B8DE's language. */
  static final String GERMAN = "de_DE.UTF-8";

  /** E1's process kills (FAULTS.md: N = 100,000 with at least 50 kills). */
  static final int E1_KILLS = 50;

  /** Row B7R's skew: relay-0's clock this far ahead, relay-1's this far behind. */
  static final int RELAY_CLOCK_SKEW_SECONDS = 60;

  /** The relay rows that acceptance 8 of issue 15 plays again with WAL relays ({@code B1-WAL}, ...). */
  static final Set<String> WAL_RELAY_ROWS = Set.of("B1", "B3", "B5", "B8", "B9", "C1", "D4", "E1");

  private static List<Scenario> pollingRows() {
    return List.of(
        row("A1", "rollbacks (explicit and failing at COMMIT), no faults", 0),
        row("A8", "20 writers on 5 aggregates (every transaction contends for the same counter rows), no faults",
            0).withContendedAggregates(5),
        row("A9", "commit notifications on: the relays' listener connections reset, relays killed", 10,
            FaultKind.PROXY_RESET, FaultKind.RELAY_KILL).withCommitNotifications(),
        row("B1", "relay kill -9 (after claim / after ack)", 6, FaultKind.RELAY_KILL),
        row("B2", "relay halted between broker ack and completion (forced)", 6, FaultKind.RELAY_HALT_ACKED),
        row("B3", "relay SIGTERM (rolling deploy)", 6, FaultKind.RELAY_TERM),
        row("B5", "relay SIGSTOP > lease TTL (zombie)", 6, FaultKind.RELAY_PAUSE),
        row("B7R", "relay hosts' clocks skewed +-60 s (leases on the database clock), rolling restarts", 4,
            FaultKind.RELAY_TERM).withRelayClockSkew(RELAY_CLOCK_SKEW_SECONDS),
        row("B8", "relay DB sessions terminated / reset / replies lost", 8, FaultKind.DB_TERMINATE,
            FaultKind.PROXY_RESET, FaultKind.PROXY_DROP_REPLY),
        row("B8DE", "relay DB sessions terminated / reset / replies lost, database restarts, every message in German",
            8, FaultKind.DB_TERMINATE, FaultKind.PROXY_RESET, FaultKind.PROXY_DROP_REPLY, FaultKind.DB_RESTART)
            .withDatabaseLocale(GERMAN),
        row("B9", "database kill -9 + restart (private database server)", 5, FaultKind.DB_RESTART),
        row("B16", "producer database's disk full (private cluster on a small tmpfs)", 5, FaultKind.DISK_FULL),
        row("B10", "relay<->DB blackhole and latency", 6, FaultKind.PROXY_BLACKHOLE, FaultKind.PROXY_LATENCY),
        row("B11", "long-held business transactions", 5, FaultKind.LONG_TX),
        row("C1", "broker kill -9 + restart", 3, FaultKind.BROKER_KILL),
        row("C2", "broker down for a long outage (kill -9, restarted after 5 min unless the figures say otherwise),"
            + " relays' maxAttempts 5", 1, FaultKind.BROKER_OUTAGE).withRelayMaxAttempts(5),
        row("C3", "relay<->broker latency", 5, FaultKind.LINK_LATENCY),
        row("C4", "broker acks lost (request applied, reply dropped)", 6, FaultKind.LINK_DROP_ACK),
        row("C10", "huge backlog after a long broker outage (scaled down: the figures give the outage and"
            + " backlog played)", 1, FaultKind.BROKER_OUTAGE),
        row("C5", "permanent broker rejection (an event above the broker's limit, below the library's): FAILED at"
            + " once, its aggregate held, others flowing; then resolved by the operator", 3, FaultKind.BROKER_REJECTS),
        row("C11", "relay<->broker reset and blackhole", 6, FaultKind.LINK_RESET, FaultKind.LINK_BLACKHOLE),
        row("D1", "consumer kill -9 / SIGTERM / SIGSTOP", 8, FaultKind.CONSUMER_KILL,
            FaultKind.CONSUMER_TERM, FaultKind.CONSUMER_PAUSE),
        row("D2", "consumer halted between its commit and its ack (forced)", 6, FaultKind.CONSUMER_HALT_COMMITTED),
        new Scenario("D4", "poison events and undecodable records", EnumSet.of(FaultKind.POISON_RECORD), 10,
            false, 0.10, 0.01, false),
        row("D5", "handler always throws (20 poison ids): attempts == max, parked count exact, others flowing", 20,
            FaultKind.POISON_THROWS),
        row("D6", "handler halts the consumer JVM (Runtime.halt) on a poison id; consumers restarted until it is"
            + " parked", 3, FaultKind.POISON_HALT),
        row("D7", "handler hangs 45 s on its first run, past the broker's ack wait (NATS 30 s): redelivered"
            + " meanwhile, applied once", 3, FaultKind.HANGING_HANDLER),
        row("D8", "SERIALIZABLE consumers bumping hot rows: serialization failures and deadlocks retried, not"
            + " parked", 0).withSerializableConsumers(),
        new Scenario("E1", "everything combined: >= 50 process kills, every other fault twice, seeded schedule",
            allBut(FaultKind.WAL_ONLY, FaultKind.ROW_ONLY), 0, false, 0.10, 0.005, false)
            .withKillFloor(E1_KILLS));
  }

  /**
   * The smoke tier: every fault kind once, some poison — except {@link FaultKind#DB_RESTART} and
   * {@link FaultKind#DISK_FULL}, which need a private database cluster (rows B9, B16 and E1; the
   * disk-full one also a tmpfs mount, which needs root).
   */
  public static Scenario smoke() {
    return new Scenario("SMOKE", "every fault kind once",
        allBut(EnumSet.of(FaultKind.DB_RESTART, FaultKind.DISK_FULL, FaultKind.SLOT_DROP), FaultKind.ROW_ONLY), 0,
        true, 0.10, 0.005, false);
  }

  /** Every fault kind except those of {@code a} and {@code b}. */
  private static Set<FaultKind> allBut(Set<FaultKind> a, Set<FaultKind> b) {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    all.removeAll(a);
    all.removeAll(b);
    return all;
  }

  /**
   * This row with {@code count} random faults instead of its own number (the full run's long E1
   * plays 60); a row without faults or playing each kind once is returned unchanged.
   */
  public Scenario withFaults(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("faults must be >= 1, was " + count);
    }
    return kinds.isEmpty() || eachOnce ? this
        : new Scenario(id, title, kinds, count, false, rollbackRate, poisonRate, walRelay, relayClockSkewSeconds, 0,
            commitNotifications, databaseLocale, relayMaxAttempts, serializableConsumers,
        contendedAggregates);
  }

  /** How many faults the nemesis applies on a broker supporting {@code supported}. */
  public int faultCount(Set<FaultKind> supported) {
    Set<FaultKind> playable = EnumSet.noneOf(FaultKind.class);
    playable.addAll(kinds);
    playable.retainAll(supported);
    if (eachOnce) {
      return playable.size();
    }
    if (killFloor > 0) {
      Set<FaultKind> kills = EnumSet.copyOf(FaultKind.KILLS);
      kills.retainAll(playable);
      playable.removeAll(FaultKind.KILLS);
      return (kills.isEmpty() ? 0 : killFloor) + 2 * playable.size();
    }
    return playable.isEmpty() ? 0 : faults;
  }

  /**
   * False when the row has faults but none the broker supports, or is a WAL or commit-notification
   * row on a store that has neither (MariaDB): the row is not played there.
   */
  public boolean playableOn(Set<FaultKind> supported, String store) {
    if ((walRelay || commitNotifications || databaseLocale != null) && !store.equals(ProducerStore.POSTGRESQL)) {
      return false;
    }
    return kinds.isEmpty() || faultCount(supported) > 0;
  }
}
