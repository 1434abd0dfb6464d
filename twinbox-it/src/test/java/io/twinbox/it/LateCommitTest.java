package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.KafkaDeliveryReader;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 5 (FAULTS B11; design rule "never poll by position without a visibility horizon"):
 * a transaction writes its event first — taking the lowest position — and commits only 10 s after
 * 1,000 later transactions committed and were published. Its event must still be published, and
 * its aggregate's order must hold: a second writer of the same aggregate, blocked on the
 * aggregate's counter while the first is open, gets sequence 2 after it; a third event written
 * after both commits gets sequence 3; all three arrive 1, 2, 3. The later transactions must not
 * wait for the open one (other aggregates keep flowing).
 */
class LateCommitTest {
  private static final String LATE = "order-late";
  private static TestDb db;

  @BeforeAll
  static void database() throws Exception {
    db = Scenario.migratedDatabase();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void lateCommitWithEarlierPositionIsPublishedInAggregateOrder() throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-late");
    broker.createTopic(topic, 8);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();

    List<ExpectedEvent> committed = new ArrayList<>();
    long otherLatencyMs;
    long lateLatencyMs;
    long latePosition;
    long minLaterPosition;
    ExpectedEvent first;
    ExpectedEvent second;
    ExpectedEvent third;
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-late").completionMode(CompletionMode.MARK).build();
        Connection open = db.dataSource().getConnection()) {
      relay.start();
      open.setAutoCommit(false);
      UUID firstId = outbox.write(open, event(LATE, "first"));
      latePosition = position(open, firstId);
      first = ExpectedEvent.ordered(firstId, Workload.AGGREGATE_TYPE, LATE, Workload.sequences(open, List.of(firstId)).get(firstId));

      // A second writer of the same aggregate blocks on its counter row until `open` commits.
      CompletableFuture<ExpectedEvent> blocked = CompletableFuture.supplyAsync(() -> writeOne(outbox, LATE, "second"));

      long otherStart = System.nanoTime();
      List<ExpectedEvent> later = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        later.add(writeOne(outbox, "order-" + (i % 100), "later"));
      }
      List<Delivery> seen = KafkaDeliveryReader.awaitIds(broker.bootstrapServers(), List.of(topic),
          later.stream().map(ExpectedEvent::id).collect(Collectors.toSet()), Duration.ofSeconds(60));
      otherLatencyMs = Scenario.millisSince(otherStart);
      assertThat(seen.stream().map(Delivery::id).collect(Collectors.toSet()))
          .as("later transactions are published while the early one is still open")
          .containsAll(later.stream().map(ExpectedEvent::id).toList());
      assertThat(blocked).as("the same-aggregate writer waits for the open transaction").isNotDone();
      minLaterPosition = Db.count(db.dataSource(), "SELECT min(position) FROM twinbox_outbox WHERE aggregate_id <> '" + LATE + "'");

      Thread.sleep(10_000);
      open.commit();
      long committedAt = System.nanoTime();
      second = blocked.get();
      third = writeOne(outbox, LATE, "third");
      await("late events published").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'") == 0);
      lateLatencyMs = Scenario.millisSince(committedAt);
      committed.addAll(later);
      committed.add(first);
      committed.add(second);
      committed.add(third);
    }
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, committed, List.of(),
        Duration.ofSeconds(60));
    Scenario.report("B11", result.summary() + " latePosition=" + latePosition + " minLaterPosition="
        + minLaterPosition + " laterPublishedWhileOpenMs=" + otherLatencyMs + " lateSequences=["
        + first.sequence() + "," + second.sequence() + "," + third.sequence() + "] latePublishedAfterCommitMs="
        + lateLatencyMs + " runtimeMs=" + Scenario.millisSince(started));

    assertThat(latePosition).isLessThan(minLaterPosition);
    assertThat(List.of(first.sequence(), second.sequence(), third.sequence())).containsExactly(1L, 2L, 3L);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.orderViolations()).isZero();
    assertThat(result.duplicates()).isZero();
  }

  private static OutboxEvent event(String aggregate, String note) {
    return OutboxEvent.builder("OrderChanged", 1).aggregate(Workload.AGGREGATE_TYPE, aggregate)
        .payload("{\"note\":\"" + note + "\"}").build();
  }

  private static long position(Connection c, UUID id) throws Exception {
    try (var ps = c.prepareStatement("SELECT position FROM twinbox_outbox WHERE id = ?")) {
      TestDb.setId(ps, 1, id);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static ExpectedEvent writeOne(Outbox outbox, String aggregate, String note) {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, event(aggregate, note));
      long sequence = Workload.sequences(c, List.of(id)).get(id);
      c.commit();
      return ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, aggregate, sequence);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
