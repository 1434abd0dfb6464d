package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.NodeIdInUseException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.Completion;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The relay's rules on a store (in memory, PostgreSQL, MariaDB), with a {@link RecordingTransport} in place of a broker:
 * drain in per-aggregate order, bounded retries and FAILED, outages that burn no attempts, lease
 * fencing, fair sharing and graceful hand-off, late commits of earlier positions, one live relay
 * per node id.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RelayContract {
  private StoreFixture fixture;
  private DataSource ds;
  private OutboxStore store;
  private Outbox outbox;

  protected abstract StoreFixture createFixture();

  /**
   * Turns the stored row of {@code id} into one the relay cannot decode into a message, as rows
   * written outside the library's checks can look (plain SQL of another language, or rows stored
   * before the schema checked them): for example headers that are JSON {@code null} (what Go's
   * {@code json.Marshal} writes for a nil map) or an id that is not a UUID.
   *
   * @return the field the row's {@code last_error} must name once it went to FAILED
   */
  protected abstract String spoilRow(DataSource ds, UUID id) throws Exception;

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.store();
    outbox = Outbox.builder(store).build();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset() throws Exception {
    fixture.reset();
  }

  private long rowCount() throws Exception {
    return fixture.outboxRows().size();
  }

  private long rowsWhere(java.util.function.Predicate<StoreFixture.OutboxRow> p) throws Exception {
    return fixture.outboxRows().stream().filter(p).count();
  }

  /** {@code status|attempts|last_error} of the aggregate's rows, in sequence order. */
  private List<String> statesOf(String aggregateId) throws Exception {
    return fixture.outboxRows().stream().filter(r -> aggregateId.equals(r.aggregateId()))
        .sorted(java.util.Comparator.comparingLong(StoreFixture.OutboxRow::sequence))
        .map(StoreFixture.OutboxRow::state).toList();
  }

  private Relay.Builder relay(RecordingTransport t) {
    return Relay.builder(store, t).leaseTtl(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(100))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build());
  }

  private static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId)
        .payload("{\"order\":\"" + aggregateId + "\",\"n\":" + n + "}").build();
  }

  private UUID writeOne(OutboxEvent e) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, e);
      c.commit();
      return id;
    }
  }

  private List<UUID> writeMany(int aggregates, int perAggregate) throws Exception {
    List<UUID> ids = new ArrayList<>();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < perAggregate; i++) {
        for (int a = 0; a < aggregates; a++) {
          ids.add(outbox.write(c, event("o-" + a, i)));
        }
        c.commit();
      }
    }
    return ids;
  }

  /** First deliveries of each aggregate must be 1, 2, 3, … */
  private static void assertOrdered(List<OutboxMessage> acked) {
    Map<String, Long> last = new HashMap<>();
    Set<UUID> seen = new HashSet<>();
    for (OutboxMessage m : acked) {
      if (seen.add(m.id())) {
        long prev = last.getOrDefault(m.aggregateId(), 0L);
        assertThat(m.sequence()).as("first delivery order of %s", m.aggregateId()).isEqualTo(prev + 1);
        last.put(m.aggregateId(), m.sequence());
      }
    }
  }

  @Test
  final void drainsEverythingOnceInPerAggregateOrderAndEmptiesTheTable() throws Exception {
    List<UUID> ids = writeMany(100, 20);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = relay(t).batchSize(300).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> t.acked().size() >= ids.size());
      assertThat(r.partitions()).hasSize(64);
    }
    assertThat(t.acked()).extracting(OutboxMessage::id).containsExactlyInAnyOrderElementsOf(ids);
    assertOrdered(t.acked());
    assertThat(rowCount()).isZero();
    assertThat(t.acked()).allSatisfy(m -> assertThat(m.source()).isEqualTo("/twinbox"));
  }

  @Test
  final void markModeKeepsRowsAsPublished() throws Exception {
    List<UUID> ids = writeMany(10, 3);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = relay(t).completionMode(CompletionMode.MARK).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          rowsWhere(row -> row.status().equals("PUBLISHED") && row.publishedAtSet()) == ids.size());
    }
    assertThat(t.acked()).hasSize(ids.size());
  }

  @Test
  final void aPoisonEventFailsAfterMaxAttemptsAndHoldsOnlyItsOwnAggregate() throws Exception {
    UUID poison = writeOne(event("bad", 1));
    UUID after = writeOne(event("bad", 2));
    List<UUID> others = writeMany(20, 5);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.id().equals(poison), PublishOutcome.retry("serializer exploded"));
    try (Relay r = relay(t).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          rowsWhere(row -> row.status().equals("FAILED")) == 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= others.size());
      Thread.sleep(500); // give a wrong relay the chance to publish the held event
      assertThat(r.stats().dead()).isEqualTo(1);
      assertThat(r.stats().retried()).isEqualTo(2);
    }
    assertThat(t.acked()).extracting(OutboxMessage::id).containsExactlyInAnyOrderElementsOf(others);
    assertThat(t.attempts()).extracting(OutboxMessage::id).doesNotContain(after);
    assertThat(t.attempts().stream().filter(m -> m.id().equals(poison)).count()).isEqualTo(3);
    assertThat(statesOf("bad"))
        .containsExactly("FAILED|3|serializer exploded", "PENDING|0|null");
  }

  /**
   * Issue 22: one row the store cannot decode among 40 used to fail the whole claim of its worker
   * every round (nothing FAILED, no last_error). Now it goes FAILED at once with its reason, holds
   * back only its own aggregate, and every healthy row is published.
   */
  @Test
  final void anUndecodableRowAmongFortyFailsAloneWithItsReasonAndHoldsOnlyItsAggregate() throws Exception {
    UUID spoiled = writeOne(event("spoiled", 1));
    UUID held = writeOne(event("spoiled", 2)); // same aggregate, after it: must wait
    List<UUID> healthy = writeMany(13, 3); // 39 healthy rows: with the spoiled one, 40
    String field = spoilRow(ds, spoiled);
    RecordingTransport t = RecordingTransport.acking();
    Relay r = relay(t).build();
    try (r) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(t.acked().size()).as("healthy rows published").isGreaterThanOrEqualTo(healthy.size());
        assertThat(rowsWhere(row -> row.status().equals("FAILED"))).as("FAILED rows")
            .isEqualTo(1);
      });
    }
    // The spoiled and the held row were claimed in the same batch as the healthy ones (batch 500):
    // once the FAILED completion is visible, that batch's fate is decided. Its count is read once
    // the relay stopped: the round counts the dead row just after its completion commits, so a
    // read in between (seen on MariaDB) finds 0.
    assertThat(r.stats().dead()).isEqualTo(1);
    assertThat(t.acked()).extracting(OutboxMessage::id).containsExactlyInAnyOrderElementsOf(healthy);
    assertOrdered(t.acked());
    assertThat(t.attempts()).extracting(OutboxMessage::id).doesNotContain(held);
    List<String> spoiledRows = statesOf("spoiled");
    assertThat(spoiledRows).hasSize(2);
    assertThat(spoiledRows.get(0)).startsWith("FAILED|1|").contains("undecodable").contains(field);
    assertThat(spoiledRows.get(1)).isEqualTo("PENDING|0|null");
    assertThat(fixture.adminStore().status()).satisfies(s -> {
      assertThat(s.failed()).isEqualTo(1);
      assertThat(s.heldAggregates()).isEqualTo(1);
      assertThat(s.pending()).isEqualTo(1);
    });
    assertThat(fixture.adminStore().troubled(null, null, null, 10)).singleElement()
        .satisfies(e -> assertThat(e.lastError()).contains(field))
        .satisfies(e -> assertThat(e.aggregateId()).isEqualTo("spoiled"));
  }

  @Test
  final void aPermanentRejectionFailsAtOnce() throws Exception {
    UUID rejected = writeOne(event("big", 1));
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.id().equals(rejected), PublishOutcome.rejected("RecordTooLargeException"));
    try (Relay r = relay(t).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          rowsWhere(row -> row.status().equals("FAILED") && row.attempts() == 1) == 1);
    }
    assertThat(fixture.outboxRows()).extracting(StoreFixture.OutboxRow::lastError)
        .singleElement().asString().contains("rejected by the broker").contains("RecordTooLarge");
  }

  @Test
  final void aBrokerOutageBurnsNoAttempts() throws Exception {
    List<UUID> ids = writeMany(10, 5);
    RecordingTransport t = RecordingTransport.acking().unavailable(true);
    try (Relay r = relay(t).outageBackoffMax(Duration.ofMillis(200)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> r.stats().outages() >= 10);
      assertThat(rowsWhere(row -> row.attempts() > 0 || !row.status().equals("PENDING"))).isZero();
      t.unavailable(false);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
      assertThat(r.stats().dead()).isZero();
    }
    assertOrdered(t.acked());
    assertThat(rowCount()).isZero();
  }

  @Test
  final void completionsOfALostLeaseAreFencedAndTouchNothing() throws Exception {
    writeMany(5, 2);
    List<PartitionLease> leases = store.acquire("zombie", 64, Duration.ofSeconds(30));
    assertThat(leases).hasSize(64);
    List<OutboxMessage> claimed = store.claim("zombie", leases, 100).stream().map(OutboxMessage.class::cast).toList();
    assertThat(claimed).hasSize(10);
    store.release("zombie", leases); // taken over: another node holds every partition, with greater epochs
    assertThat(store.acquire("successor", 64, Duration.ofSeconds(30))).hasSize(64);
    Completion c = store.complete("zombie", leases, claimed, List.of(), CompletionMode.DELETE);
    assertThat(c.completed()).isZero();
    assertThat(c.fenced()).isEqualTo(10);
    assertThat(rowCount()).isEqualTo(10);
    assertThat(store.claim("zombie", leases, 100)).as("a node without leases claims nothing").isEmpty();
  }

  @Test
  final void expiredLeasesAreTakenOverWithAGreaterEpoch() throws Exception {
    List<PartitionLease> first = store.acquire("dead", 64, Duration.ofSeconds(1));
    assertThat(store.acquire("other", 64, Duration.ofSeconds(30))).as("all held").isEmpty();
    Thread.sleep(1_300);
    List<PartitionLease> taken = store.acquire("other", 64, Duration.ofSeconds(30));
    assertThat(taken).hasSize(64);
    Map<Integer, Long> before = new HashMap<>();
    first.forEach(l -> before.put(l.partition(), l.epoch()));
    assertThat(taken).allSatisfy(l -> assertThat(l.epoch()).isGreaterThan(before.get(l.partition())));
    assertThat(store.renew("dead", first, Duration.ofSeconds(30))).as("the dead node renews nothing").isEmpty();
  }

  @Test
  final void twoRelaysShareThePartitionsAndAGracefulStopHandsOverAtOnce() throws Exception {
    RecordingTransport t = RecordingTransport.acking();
    try (Relay a = relay(t).nodeId("a").build(); Relay b = relay(t).nodeId("b").build()) {
      a.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.partitions().size() == 64);
      b.start();
      await().atMost(Duration.ofSeconds(15)).until(() -> a.partitions().size() == 32 && b.partitions().size() == 32);
      assertThat(a.partitions()).doesNotContainAnyElementsOf(b.partitions());
      List<UUID> ids = writeMany(50, 4);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
      a.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> b.partitions().size() == 64);
      List<UUID> more = writeMany(50, 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size() + more.size());
    }
    assertThat(t.acked()).hasSize(250);
    assertOrdered(t.acked());
  }

  @Test
  final void anEarlierPositionCommittedLateIsStillPublishedInOrder() throws Exception {
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = relay(t).build()) {
      r.start();
      UUID late;
      try (Connection slow = ds.getConnection()) {
        slow.setAutoCommit(false);
        late = outbox.write(slow, event("slow", 1)); // takes a low position, commits last
        List<UUID> ids = writeMany(20, 3);
        await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
        slow.commit();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> t.acked().stream().anyMatch(m -> m.id().equals(late)));
      writeOne(event("slow", 2));
      await().atMost(Duration.ofSeconds(10)).until(() -> t.acked().size() == 62);
    }
    assertOrdered(t.acked());
  }

  @Test
  final void transientFailuresInFullSmallBatchesLetNoLaterEventOvertake() throws Exception {
    List<UUID> ids = writeMany(5, 40); // every batch of 10 holds two events of each aggregate: two waves
    Set<UUID> flaky = new HashSet<>();
    for (int i = 3; i < ids.size(); i += 7) {
      flaky.add(ids.get(i));
    }
    Set<UUID> failedOnce = ConcurrentHashMap.newKeySet();
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> flaky.contains(m.id()) && failedOnce.add(m.id()), PublishOutcome.retry("flaky once"));
    try (Relay r = relay(t).batchSize(10).workers(1).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(60)).until(() ->
          t.acked().stream().map(OutboxMessage::id).distinct().count() >= ids.size());
      assertThat(r.stats().retried()).isEqualTo(flaky.size());
      assertThat(r.stats().dead()).isZero();
    }
    assertThat(t.acked()).extracting(OutboxMessage::id).containsAll(ids);
    assertOrdered(t.acked());
    assertThat(rowCount()).isZero();
  }

  /**
   * Issue 22 (Low): two relays started with one node id would share every lease. The second is
   * refused while the first heartbeats; the refused one leaves the first's node row alone.
   */
  @Test
  final void aSecondRelayWithTheNodeIdOfALiveOneIsRefused() throws Exception {
    RecordingTransport t = RecordingTransport.acking();
    try (Relay first = relay(t).nodeId("twin").build()) {
      first.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> first.partitions().size() == 64);
      Map<String, String> row = fixture.relayNodes();
      try (Relay second = relay(t).nodeId("twin").build()) {
        assertThatThrownBy(second::start).isInstanceOf(NodeIdInUseException.class)
            .hasMessageContaining("'twin'").hasMessageContaining("relay.node.id")
            .satisfies(e -> assertThat(((NodeIdInUseException) e).nodeId()).isEqualTo("twin"));
        assertThat(second.partitions()).isEmpty();
      }
      assertThat(fixture.relayNodes()).as("the live relay's row")
          .isEqualTo(row);
      List<UUID> ids = writeMany(10, 2);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
      assertThat(first.partitions()).hasSize(64);
    }
    assertThat(t.acked()).hasSize(20);
  }

  /**
   * A restart of the same node after a crash: the crashed run's row still carries a fresh heartbeat
   * that no longer moves. The new run waits for it to lapse (about one lease TTL) and takes over.
   */
  @Test
  final void aRestartAfterACrashTakesTheNodeIdOverOnceTheOldHeartbeatLapses() throws Exception {
    Duration ttl = Duration.ofSeconds(2);
    assertThat(store.register("phoenix", "crashed-run", ttl)).as("the run that is about to crash").isEmpty();
    RecordingTransport t = RecordingTransport.acking();
    try (Relay restarted = relay(t).nodeId("phoenix").leaseTtl(ttl).build()) {
      restarted.start(); // would throw if it took the crashed run for a live one
      assertThat(fixture.relayNodes()).containsOnlyKeys("phoenix")
          .extractingByKey("phoenix").isNotEqualTo("crashed-run");
      List<UUID> ids = writeMany(5, 2);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
    }
    assertThat(fixture.relayNodes()).as("left on close").isEmpty();
  }

  /**
   * A relay frozen for longer than the TTL may find its node id taken over by a later start: at its
   * next heartbeat it gives its leases back and publishes nothing more.
   */
  @Test
  final void aRelayWhoseNodeIdWasTakenOverStopsPublishing() throws Exception {
    RecordingTransport t = RecordingTransport.acking();
    try (Relay frozen = relay(t).nodeId("frozen").build()) {
      frozen.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> frozen.partitions().size() == 64);
      // A later run takes the node id over, as one started while this relay's heartbeat looks lapsed.
      assertThat(store.register("frozen", "later-run", Duration.ZERO)).as("taken over").isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> frozen.partitions().isEmpty());
      // Given back, not left to expire: the run that took the node id over may take them at once.
      await().atMost(Duration.ofSeconds(10)).until(() ->
          fixture.partitionsOwnedBy("frozen") == 0);
      writeMany(5, 1);
      Thread.sleep(1_500); // a relay that kept publishing would have published these by now
      assertThat(t.acked()).isEmpty();
      assertThat(frozen.partitions()).isEmpty();
    }
    assertThat(fixture.relayNodes()).as("the later run's row survives the frozen relay's close")
        .containsEntry("frozen", "later-run");
  }
}
