package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.twinbox.Outbox;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.WalStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A backlog in the slot — events committed while no WAL relay streamed, as after an outage — is
 * the stream's to publish: the relay that starts on it delivers every event in order from the
 * stream, and its sweep (the polling claim over the table) publishes none of it. Before the fix the
 * sweep raced the stream through such a backlog from the first row (every group with rows in the
 * table was held at start and swept), and the drain ran at the speed of a one-worker polling relay
 * (BENCHMARKS.md, "WAL relay (issue 15)").
 */
class WalBacklogTest {
  private static WalCluster pg;
  private static KafkaBroker broker;

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

  @Test
  void aBacklogInTheSlotGoesOutThroughTheStreamInOrder() throws Exception {
    long started = System.nanoTime();
    TestDb db = pg.database("backlog");
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    String topic = Scenario.topicName("wal-backlog");
    broker.createTopic(topic, 8);
    store.prepareChangeFeed("twinbox_backlog"); // the slot exists before the events: they wait in it
    Workload work = new Workload(db.dataSource(), Outbox.builder(store).build(), 500, 6_000, 4, 0.0, 0, 21);
    work.start();
    work.await(Duration.ofMinutes(2));
    assertThat(Db.outboxRows(db.dataSource())).as("the backlog waits in the table too").isEqualTo(6_000);
    try (SwitchableTransport kafka = new SwitchableTransport(Scenario.kafka(broker.bootstrapServers(), topic))
        .countOnly()) {
      Relay relay = Relay.builder(store, kafka).mode(RelayMode.WAL).nodeId("wal-backlog")
          .leaseTtl(Duration.ofSeconds(2)).build();
      try {
        relay.start();
        await("backlog drained").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
            .until(() -> Db.outboxRows(db.dataSource()) == 0);
      } finally {
        relay.close();
        // The server ends the walsender a moment after the relay closed its connection.
        await("walsender of the slot ended").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
            .until(() -> pg.activePid(db, "twinbox_backlog") == 0);
        store.dropWalSlot("twinbox_backlog");
      }
      CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(),
          work.rolledBack(), Duration.ofSeconds(60));
      WalStats engine = relay.walStats().orElseThrow();
      Scenario.report("WAL-backlog", result.summary() + " streamed=" + engine.streamed() + " swept=" + engine.swept()
          + " sessions=" + engine.sessions() + " runtimeMs=" + Scenario.millisSince(started));
      assertThat(result.ok()).as(result.describe(10)).isTrue();
      assertThat(result.lost()).isZero();
      assertThat(result.orderViolations()).isZero();
      assertThat(result.duplicates()).isZero();
      assertThat(engine.swept()).as("the sweep published none of the backlog").isZero();
      assertThat(engine.streamed()).as("the stream published all of it").isEqualTo(6_000);
    }
  }
}
