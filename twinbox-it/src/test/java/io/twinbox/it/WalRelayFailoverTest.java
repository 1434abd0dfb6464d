package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.twinbox.Outbox;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One active streamer, hot standbys (issue 15, acceptance 2 and 3): WAL relays as separate JVMs
 * ({@link WalRelayProcess}) on a private {@code wal_level=logical} cluster, lease TTL 2 s, writers
 * running. The active one is killed -9 five times (each time a fresh standby joins): every time the
 * standby takes the lease and the slot within TTL + 2 s, nothing is lost, order holds. The active one
 * frozen with SIGSTOP past its lease: the standby ends its walsender and streams; thawed, the
 * ex-leader sends nothing and confirms nothing, and nothing is lost.
 */
class WalRelayFailoverTest {
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final int KILLS = 5;
  private static WalCluster pg;
  private static KafkaBroker broker;
  private RelayProcesses relays;

  @BeforeAll
  static void cluster() {
    assumeFalse(TestDb.MARIADB, "the WAL relay is PostgreSQL only; its tests run in the PostgreSQL execution");
    pg = WalCluster.start();
    broker = KafkaBroker.shared();
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @AfterEach
  void killRelays() {
    if (relays != null) {
      relays.close();
    }
  }

  @Test
  void killedStreamerIsTakenOverWithinTheLeaseAndNothingIsLost() throws Exception {
    long started = System.nanoTime();
    TestDb db = pg.database("failover");
    String topic = topic("wal-failover");
    relays = new RelayProcesses("wal-failover", WalRelayProcess.class);
    List<RelayProcesses.Child> alive = new ArrayList<>(
        relays.startAll(db, broker.bootstrapServers(), topic, TTL, "wal-a", "wal-b"));
    await("one relay streams").atMost(Duration.ofSeconds(30)).until(() -> streamer(db, alive) != null);

    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    Workload work = new Workload(db.dataSource(), outbox, 1_000, 200_000, 8, 0.10, 1_000, 21).start();
    List<Long> takeoverMs = new ArrayList<>();
    List<Long> firstPublishMs = new ArrayList<>();
    List<String> finals = new ArrayList<>();
    try {
      for (int kill = 1; kill <= KILLS; kill++) {
        alive.forEach(RelayProcesses.Child::awaitStarted); // the standby launched last round
        RelayProcesses.Child active = streamer(db, alive);
        RelayProcesses.Child standby = alive.stream().filter(c -> c != active).findFirst().orElseThrow();
        long before = active.latestStats().getOrDefault("published", 0L);
        await("active relay publishes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
            .until(() -> active.latestStats().getOrDefault("published", 0L) > before + 300);
        long standbyPublished = standby.latestStats().getOrDefault("published", 0L);
        int walsender = pg.activePid(db, "twinbox_failover");
        finals.add(active.nodeId + "=" + active.latestStats());
        active.kill9();
        long killedAt = System.nanoTime();
        alive.remove(active);
        await("standby holds the lease and streams the slot").atMost(TTL.plusSeconds(10))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> owners(db).equals(Map.of(standby.nodeId, 64L)) && pg.activePid(db, "twinbox_failover") > 0
                && pg.activePid(db, "twinbox_failover") != walsender);
        takeoverMs.add(Scenario.millisSince(killedAt));
        await("standby publishes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
            .until(() -> standby.latestStats().getOrDefault("published", 0L) > standbyPublished);
        firstPublishMs.add(Scenario.millisSince(killedAt));
        alive.add(relays.launchOne(db, broker.bootstrapServers(), topic, TTL, "wal-" + (char) ('a' + kill + 1)));
      }
    } finally {
      work.stop();
    }
    work.await(Duration.ofMinutes(1));
    await("outbox drained").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
        .until(() -> Db.outboxRows(db.dataSource()) == 0);
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(),
        work.rolledBack(), Duration.ofSeconds(90));
    for (RelayProcesses.Child c : alive) {
      finals.add(c.nodeId + "=" + c.stopGracefully());
    }
    Scenario.report("WAL-A2", result.summary() + " rolledBack=" + work.rolledBack().size() + " kills=" + KILLS
        + " ttlMs=" + TTL.toMillis() + " takeoverMs=" + takeoverMs + " firstPublishMs=" + firstPublishMs
        + " relays=" + finals + " runtimeMs="
        + Scenario.millisSince(started));
    JdbcStore.builder(db.dataSource()).build().dropWalSlot("twinbox_failover");

    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.phantom()).isZero();
    assertThat(result.orderViolations()).isZero();
    assertThat(takeoverMs).hasSize(KILLS).allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(TTL.toMillis() + 2_000));
  }

  @Test
  void pausedStreamerIsFencedCannotPublishOrConfirmAndNothingIsLost() throws Exception {
    long started = System.nanoTime();
    TestDb db = pg.database("zombie");
    String slot = "twinbox_zombie";
    String topic = topic("wal-zombie");
    relays = new RelayProcesses("wal-zombie", WalRelayProcess.class);
    List<RelayProcesses.Child> both = relays.startAll(db, broker.bootstrapServers(), topic, TTL, "wal-z", "wal-y");
    await("one relay streams").atMost(Duration.ofSeconds(30)).until(() -> streamer(db, both) != null);
    RelayProcesses.Child zombie = streamer(db, both);
    RelayProcesses.Child other = both.stream().filter(c -> c != zombie).findFirst().orElseThrow();

    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    Workload work = new Workload(db.dataSource(), outbox, 500, 200_000, 4, 0.10, 600, 22).start();
    Map<String, Long> first;
    Map<String, Long> last;
    long takeoverMs;
    long firstPublishMs;
    int zombieWalsender;
    int otherWalsender;
    long zombieWalsenderAlive;
    try {
      await("zombie publishes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> zombie.latestStats().getOrDefault("published", 0L) > 300);
      zombieWalsender = pg.activePid(db, slot);
      long otherPublished = other.latestStats().getOrDefault("published", 0L);
      zombie.signal("STOP");
      long pausedAt = System.nanoTime();
      await("standby ends the zombie's walsender and streams").atMost(TTL.plusSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> owners(db).equals(Map.of(other.nodeId, 64L)) && pg.activePid(db, slot) > 0
              && pg.activePid(db, slot) != zombieWalsender);
      takeoverMs = Scenario.millisSince(pausedAt);
      await("standby publishes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
          .until(() -> other.latestStats().getOrDefault("published", 0L) > otherPublished);
      firstPublishMs = Scenario.millisSince(pausedAt);
      otherWalsender = pg.activePid(db, slot);
      Thread.sleep(Math.max(0, 5_000 - Scenario.millisSince(pausedAt)));
      int linesBefore = zombie.statsLines();
      zombie.signal("CONT");
      Thread.sleep(2_000);
      first = zombie.statsLine(linesBefore);
      Thread.sleep(2_000);
      last = zombie.latestStats();
      zombieWalsenderAlive = Db.count(db.dataSource(),
          "SELECT count(*) FROM pg_stat_activity WHERE pid = " + zombieWalsender);
      assertThat(pg.activePid(db, slot)).as("the slot stays with the new streamer").isEqualTo(otherWalsender);
    } finally {
      work.stop();
    }
    work.await(Duration.ofMinutes(1));
    await("outbox drained").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> Db.outboxRows(db.dataSource()) == 0);
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(),
        work.rolledBack(), Duration.ofSeconds(60));
    Map<String, Long> zombieFinal = zombie.stopGracefully();
    Map<String, Long> otherFinal = other.stopGracefully();
    Scenario.report("WAL-A3", result.summary() + " rolledBack=" + work.rolledBack().size() + " ttlMs=" + TTL.toMillis()
        + " takeoverMs=" + takeoverMs + " firstPublishMs=" + firstPublishMs + " zombieAfterThaw=" + first + " zombie4sLater=" + last + " zombieFinal="
        + zombieFinal + " other=" + otherFinal + " walsenders=" + zombieWalsender + "->" + otherWalsender
        + " runtimeMs=" + Scenario.millisSince(started));
    JdbcStore.builder(db.dataSource()).build().dropWalSlot(slot);

    assertThat(first).as("the zombie printed after SIGCONT").isNotEmpty();
    assertThat(last.get("sends")).as("no publish after the lease was lost").isEqualTo(first.get("sends"));
    assertThat(last.get("confirms")).as("no slot confirmation after the lease was lost")
        .isEqualTo(first.get("confirms"));
    assertThat(zombieWalsenderAlive).as("the zombie's walsender was ended").isZero();
    assertThat(takeoverMs).isLessThanOrEqualTo(TTL.toMillis() + 2_000);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.orderViolations()).isZero();
  }

  /** The relay holding all 64 partitions, or null. */
  private static RelayProcesses.Child streamer(TestDb db, List<RelayProcesses.Child> candidates) {
    Map<String, Long> owners = owners(db);
    return candidates.stream().filter(c -> owners.getOrDefault(c.nodeId, 0L) == 64L).findFirst().orElse(null);
  }

  /** Owner → partitions with a lease valid now (database clock). */
  private static Map<String, Long> owners(TestDb db) {
    return Db.rows(db.dataSource(), "SELECT owner, count(*) AS n FROM twinbox_relay_lease WHERE owner IS NOT NULL"
            + " AND lease_until > clock_timestamp() GROUP BY owner")
        .stream().collect(Collectors.toMap(r -> (String) r.get("owner"), r -> (Long) r.get("n")));
  }

  private static String topic(String prefix) {
    String topic = Scenario.topicName(prefix);
    broker.createTopic(topic, 8);
    return topic;
  }
}
