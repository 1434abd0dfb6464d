package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.twinbox.ChangeFeedException;
import io.twinbox.Health;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayListener;
import io.twinbox.RelayMode;
import io.twinbox.TwinboxException;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * FAULTS G4 with the WAL relay (issue 15): the replication slot is lost under a running relay —
 * dropped, or invalidated by the server ({@code max_slot_wal_keep_size}). The relay must stop
 * streaming for good (a new slot would start past WAL it never read), release its leases, report
 * {@code SLOT_LOST} through {@link Relay#fault()} and its listener, and turn the health check DOWN
 * with the reason; then the runbook's fallback — the polling relay — publishes every event the
 * table still holds. Private {@code wal_level=logical} cluster (its own: the invalidation changes a
 * server setting), real Kafka broker.
 */
class WalSlotLostTest {
  private static final Duration TTL = Duration.ofSeconds(2);
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
  void slotDroppedUnderTheRelayStopsItAndTurnsHealthDown() throws Exception {
    long started = System.nanoTime();
    TestDb db = pg.database("dropped");
    String slot = "twinbox_dropped";
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    String topic = topic("wal-dropped");
    List<ChangeFeedException> lost = new CopyOnWriteArrayList<>();
    List<ExpectedEvent> all = new ArrayList<>();
    try (SwitchableTransport kafka = new SwitchableTransport(Scenario.kafka(broker.bootstrapServers(), topic))
        .countOnly()) {
      Relay relay = walRelay(store, kafka, "wal-dropped", lost);
      Health health = new Health(store).watching(() -> relay);
      try {
        relay.start();
        all.addAll(write(db, outbox, 200));
        await("streamed").atMost(Duration.ofSeconds(30)).until(() -> Db.outboxRows(db.dataSource()) == 0);
        assertThat(health.check().up()).as(health.check().reasons().toString()).isTrue();

        // Someone drops the slot (the walsender ended first: an active slot cannot be dropped).
        await("slot dropped").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
          Db.exec(db.dataSource(), "SELECT pg_terminate_backend(active_pid, 5000) FROM pg_replication_slots"
              + " WHERE slot_name = '" + slot + "' AND active_pid IS NOT NULL");
          try {
            Db.exec(db.dataSource(), "SELECT pg_drop_replication_slot('" + slot + "')");
            return true;
          } catch (java.sql.SQLException e) {
            return false; // the relay reattached in between: end it again
          }
        });
        TwinboxException fault = awaitFault(relay);
        Health.Report report = health.check();
        long sendsAtLoss = kafka.sendCount();
        all.addAll(write(db, outbox, 100)); // written after the loss: only in the table and in no slot
        Thread.sleep(2_000); // longer than the engine's reopen backoff and the lease TTL
        Scenario.report("WAL-G4-dropped", "fault=" + fault.getMessage() + " health=" + report.reasons()
            + " partitions=" + relay.partitions() + " pendingAfter=" + Db.outboxRows(db.dataSource()) + " runtimeMs="
            + Scenario.millisSince(started));

        assertThat(fault).isInstanceOf(ChangeFeedException.class);
        assertThat(((ChangeFeedException) fault).problem()).isEqualTo(ChangeFeedException.Problem.SLOT_LOST);
        assertThat(fault.getMessage()).contains(slot, "no longer exists", "polling relay");
        assertThat(lost).as("the listener (RelayMetrics' slot.lost gauge) heard it once").hasSize(1);
        assertThat(report.up()).isFalse();
        assertThat(report.reasons()).anySatisfy(r -> assertThat(r).contains("relay wal-dropped stopped", slot));
        assertThat(relay.partitions()).as("leases given up for the fallback").isEmpty();
        assertThat(store.walSlots()).as("no new slot made past the unread WAL")
            .noneMatch(s -> s.name().equals(slot));
        assertThat(kafka.sendCount()).as("nothing published after the loss").isEqualTo(sendsAtLoss);
        assertThat(Db.outboxRows(db.dataSource())).isEqualTo(100);
      } finally {
        relay.close();
      }
      drainWithPollingRelay(db, store, kafka, all, topic);
    } finally {
      store.dropWalSlot(slot); // nothing to drop: no slot may be left behind in any case
    }
  }

  @Test
  void slotInvalidatedByTheServerStopsTheRelayAndTurnsHealthDown() throws Exception {
    long started = System.nanoTime();
    TestDb db = pg.database("invalidated");
    String slot = "twinbox_invalidated";
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    String topic = topic("wal-invalidated");
    List<ChangeFeedException> lost = new CopyOnWriteArrayList<>();
    List<ExpectedEvent> all = new ArrayList<>();
    Db.exec(db.dataSource(), "CREATE TABLE noise (id bigserial PRIMARY KEY, filler text NOT NULL)");
    SwitchableTransport kafka = new SwitchableTransport(Scenario.kafka(broker.bootstrapServers(), topic)).countOnly();
    Relay relay = walRelay(store, kafka, "wal-invalidated", lost);
    Health health = new Health(store).watching(() -> relay);
    try {
      relay.start();
      await("streaming").atMost(Duration.ofSeconds(20)).until(() -> pg.activePid(db, slot) > 0);
      // The broker is down: the relay confirms nothing while WAL piles up beyond what the server
      // may keep for a slot; a checkpoint then invalidates it and ends its walsender.
      kafka.down(true);
      all.addAll(write(db, outbox, 100));
      Db.exec(db.dataSource(), "ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'");
      Db.exec(db.dataSource(), "SELECT pg_reload_conf()");
      await("slot invalidated").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
        Db.exec(db.dataSource(), "INSERT INTO noise (filler) SELECT repeat('x', 500) FROM generate_series(1, 20000)");
        Db.exec(db.dataSource(), "SELECT pg_switch_wal()");
        Db.exec(db.dataSource(), "CHECKPOINT");
        return "lost".equals(pg.walStatus(db, slot));
      });
      TwinboxException fault = awaitFault(relay);
      kafka.down(false);
      Health.Report report = health.check();
      long sendsAtLoss = kafka.sendCount();
      Thread.sleep(2_000);
      Scenario.report("WAL-G4-invalidated", "fault=" + fault.getMessage() + " health=" + report.reasons()
          + " walStatus=" + pg.walStatus(db, slot) + " pendingAfter=" + Db.outboxRows(db.dataSource())
          + " runtimeMs=" + Scenario.millisSince(started));

      assertThat(((ChangeFeedException) fault).problem()).isEqualTo(ChangeFeedException.Problem.SLOT_LOST);
      assertThat(fault.getMessage()).contains(slot, "invalidated", "max_slot_wal_keep_size");
      assertThat(lost).hasSize(1);
      assertThat(report.up()).isFalse();
      assertThat(report.reasons()).anySatisfy(r -> assertThat(r).contains("relay wal-invalidated stopped", slot));
      assertThat(relay.partitions()).isEmpty();
      assertThat(kafka.sendCount()).as("the lost relay publishes nothing, also after the broker is back")
          .isEqualTo(sendsAtLoss);
      assertThat(Db.outboxRows(db.dataSource())).isEqualTo(100);
      relay.close();
      // The runbook: drop the lost slot, publish the table's rows with the polling relay.
      assertThat(store.dropWalSlot(slot)).isTrue();
      drainWithPollingRelay(db, store, kafka, all, topic);
    } finally {
      relay.close();
      kafka.close();
      Db.exec(db.dataSource(), "ALTER SYSTEM RESET max_slot_wal_keep_size");
      Db.exec(db.dataSource(), "SELECT pg_reload_conf()");
      store.dropWalSlot(slot);
    }
  }

  private static TwinboxException awaitFault(Relay relay) {
    await("relay reports the lost slot").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .until(() -> relay.fault().isPresent());
    return relay.fault().orElseThrow();
  }

  /** The runbook's fallback: every event not yet published is a row, and the polling relay sends it. */
  private static void drainWithPollingRelay(TestDb db, JdbcStore store, SwitchableTransport kafka,
      List<ExpectedEvent> all, String topic) throws Exception {
    try (Relay polling = Relay.builder(store, kafka).nodeId("polling-fallback").leaseTtl(TTL).build()) {
      polling.start();
      await("drained by the polling relay").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> Db.outboxRows(db.dataSource()) == 0);
      assertThat(polling.fault()).isEmpty();
    }
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, all, List.of(), Duration.ofSeconds(60));
    Scenario.report("WAL-G4-fallback", result.summary());
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.orderViolations()).isZero();
  }

  private static Relay walRelay(JdbcStore store, SwitchableTransport kafka, String node,
      List<ChangeFeedException> lost) {
    return Relay.builder(store, kafka).mode(RelayMode.WAL).nodeId(node).leaseTtl(TTL)
        .outageBackoffMax(Duration.ofMillis(500)).listener(new RelayListener() {
          @Override
          public void changeFeedLost(ChangeFeedException reason) {
            lost.add(reason);
          }
        }).build();
  }

  private static List<ExpectedEvent> write(TestDb db, Outbox outbox, int events) throws Exception {
    List<ExpectedEvent> out = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      String aggregate = "order-" + (i % 20);
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        UUID id = outbox.write(c, OutboxEvent.builder("OrderChanged", 1)
            .aggregate(Workload.AGGREGATE_TYPE, aggregate).payload("{\"n\":" + i + "}").build());
        long sequence = Workload.sequences(c, List.of(id)).get(id);
        c.commit();
        out.add(ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, aggregate, sequence));
      }
    }
    return out;
  }

  private static String topic(String prefix) {
    String topic = Scenario.topicName(prefix);
    broker.createTopic(topic, 8);
    return topic;
  }
}
