package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static io.twinbox.testkit.contract.Sql.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.Completion;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.RecordingTransport;
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
 * The relay's rules on a real store, with a {@link RecordingTransport} in place of a broker:
 * drain in per-aggregate order, bounded retries and FAILED, outages that burn no attempts, lease
 * fencing, fair sharing and graceful hand-off, late commits of earlier positions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RelayContract {
  private StoreFixture fixture;
  private DataSource ds;
  private OutboxStore store;
  private Outbox outbox;

  protected abstract StoreFixture createFixture();

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
    Sql.reset(ds);
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
    assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox")).isZero();
    assertThat(t.acked()).allSatisfy(m -> assertThat(m.source()).isEqualTo("/twinbox"));
  }

  @Test
  final void markModeKeepsRowsAsPublished() throws Exception {
    List<UUID> ids = writeMany(10, 3);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = relay(t).completionMode(CompletionMode.MARK).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> count(ds,
          "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED' AND published_at IS NOT NULL") == ids.size());
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
          count(ds, "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= others.size());
      Thread.sleep(500); // give a wrong relay the chance to publish the held event
      assertThat(r.stats().dead()).isEqualTo(1);
      assertThat(r.stats().retried()).isEqualTo(2);
    }
    assertThat(t.acked()).extracting(OutboxMessage::id).containsExactlyInAnyOrderElementsOf(others);
    assertThat(t.attempts()).extracting(OutboxMessage::id).doesNotContain(after);
    assertThat(t.attempts().stream().filter(m -> m.id().equals(poison)).count()).isEqualTo(3);
    assertThat(rows(ds, "SELECT status, attempts, last_error FROM twinbox_outbox WHERE aggregate_id = 'bad' ORDER BY sequence"))
        .containsExactly("FAILED|3|serializer exploded", "PENDING|0|null");
  }

  @Test
  final void aPermanentRejectionFailsAtOnce() throws Exception {
    UUID rejected = writeOne(event("big", 1));
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.id().equals(rejected), PublishOutcome.rejected("RecordTooLargeException"));
    try (Relay r = relay(t).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          count(ds, "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED' AND attempts = 1") == 1);
    }
    assertThat(rows(ds, "SELECT last_error FROM twinbox_outbox"))
        .singleElement().asString().contains("rejected by the broker").contains("RecordTooLarge");
  }

  @Test
  final void aBrokerOutageBurnsNoAttempts() throws Exception {
    List<UUID> ids = writeMany(10, 5);
    RecordingTransport t = RecordingTransport.acking().unavailable(true);
    try (Relay r = relay(t).outageBackoffMax(Duration.ofMillis(200)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> r.stats().outages() >= 10);
      assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox WHERE attempts > 0 OR status <> 'PENDING'")).isZero();
      t.unavailable(false);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() >= ids.size());
      assertThat(r.stats().dead()).isZero();
    }
    assertOrdered(t.acked());
    assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox")).isZero();
  }

  @Test
  final void completionsOfALostLeaseAreFencedAndTouchNothing() throws Exception {
    writeMany(5, 2);
    List<PartitionLease> leases = store.acquire("zombie", 64, Duration.ofSeconds(30));
    assertThat(leases).hasSize(64);
    List<OutboxMessage> claimed = store.claim("zombie", leases, 100);
    assertThat(claimed).hasSize(10);
    Sql.exec(ds, "UPDATE twinbox_relay_lease SET owner = 'successor', epoch = epoch + 1"); // taken over
    Completion c = store.complete("zombie", leases, claimed, List.of(), CompletionMode.DELETE);
    assertThat(c.completed()).isZero();
    assertThat(c.fenced()).isEqualTo(10);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox")).isEqualTo(10);
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
    assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox")).isZero();
  }
}
