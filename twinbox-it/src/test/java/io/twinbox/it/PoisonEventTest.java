package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.KafkaDeliveryReader;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4 (FAULTS D5 on the relay side, O1, O4, bounded failure): the transport answers
 * {@code RETRY} forever for one event (sequence 2 of aggregate {@code order-poison}). That row must
 * end FAILED after exactly {@code maxAttempts} (4) sends with the reason in {@code last_error}; the
 * aggregate's later events (3 and 4) must never be sent or reach the topic; every other
 * aggregate's events must all be published, in order.
 */
class PoisonEventTest {
  private static final String POISON = "order-poison";
  private static final int MAX_ATTEMPTS = 4;
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
  void poisonEventGoesFailedAndHoldsOnlyItsOwnAggregate() throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-poison");
    broker.createTopic(topic, 8);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    RecordingTransport transport = RecordingTransport.wrapping(Scenario.kafka(broker.bootstrapServers(), topic))
        .failWhen(m -> isPoison(m), PublishOutcome.retry("injected: consumer schema refuses this event"));
    RetryPolicy policy = RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS)
        .backoff(Duration.ofMillis(20), Duration.ofMillis(200)).build();

    List<ExpectedEvent> flowing = new ArrayList<>();
    List<ExpectedEvent> held = new ArrayList<>();
    RelayStats stats;
    long failedAfterMs;
    try (Relay relay = Relay.builder(store, transport).nodeId("it-poison").retryPolicy(policy)
        .pollInterval(Duration.ofMillis(100)).build()) {
      relay.start();
      // 4 events of the poison aggregate interleaved with 5 events of each of 200 others, one
      // transaction each, so the poison's later events are written while it is retried.
      for (int round = 1; round <= 5; round++) {
        for (int a = 0; a < 200; a++) {
          flowing.add(writeOne(outbox, "order-" + a));
        }
        if (round <= 4) {
          ExpectedEvent e = writeOne(outbox, POISON);
          (e.sequence() == 1 ? flowing : held).add(e);
        }
      }
      long written = System.nanoTime();
      await("poison row FAILED").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> Db.count(db.dataSource(),
              "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      failedAfterMs = Scenario.millisSince(written);
      await("all other aggregates published").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> Db.count(db.dataSource(),
              "SELECT count(*) FROM twinbox_outbox WHERE aggregate_id <> '" + POISON + "'") == 0);
      // The held events stay held: give the relay many more poll intervals to misbehave.
      Thread.sleep(1_000);
      stats = relay.stats();
    } finally {
      transport.close();
    }

    List<Map<String, Object>> rows = Db.rows(db.dataSource(),
        "SELECT sequence, status, attempts, last_error FROM twinbox_outbox ORDER BY sequence");
    Set<UUID> heldIds = held.stream().map(ExpectedEvent::id).collect(Collectors.toSet());
    List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(broker.bootstrapServers(), List.of(topic),
        flowing.stream().map(ExpectedEvent::id).collect(Collectors.toSet()), Duration.ofSeconds(60));
    CheckResult result = DeliveryChecker.check(flowing, List.of(), deliveries);
    long heldDelivered = deliveries.stream().filter(d -> heldIds.contains(d.id())).count();
    long poisonSends = transport.attempts().stream().filter(PoisonEventTest::isPoison).count();
    long laterSends = transport.attempts().stream()
        .filter(m -> POISON.equals(m.aggregateId()) && m.sequence() > 2).count();
    Scenario.report("D5", result.summary() + " heldDelivered=" + heldDelivered + " poisonSends=" + poisonSends
        + " laterPoisonSends=" + laterSends + " failedAfterMs=" + failedAfterMs + " rows=" + rows
        + " relay=" + RelayProcess.line(stats) + " runtimeMs=" + Scenario.millisSince(started));

    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).containsEntry("sequence", 2L).containsEntry("status", "FAILED")
        .containsEntry("attempts", MAX_ATTEMPTS);
    assertThat((String) rows.get(0).get("last_error")).contains("injected: consumer schema refuses this event");
    assertThat(rows.subList(1, 3)).allSatisfy(r -> assertThat(r).containsEntry("status", "PENDING")
        .containsEntry("attempts", 0));
    assertThat(poisonSends).isEqualTo(MAX_ATTEMPTS);
    assertThat(laterSends).isZero();
    assertThat(heldDelivered).isZero();
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.committed()).isEqualTo(1_001);
    assertThat(stats.dead()).isEqualTo(1);
    assertThat(stats.retried()).isEqualTo(MAX_ATTEMPTS - 1);
  }

  private static boolean isPoison(OutboxMessage m) {
    return POISON.equals(m.aggregateId()) && m.sequence() == 2;
  }

  private static ExpectedEvent writeOne(Outbox outbox, String aggregate) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder("OrderChanged", 1)
          .aggregate(Workload.AGGREGATE_TYPE, aggregate).payload("{\"order\":\"" + aggregate + "\"}").build());
      long sequence = Workload.sequences(c, List.of(id)).get(id);
      c.commit();
      return ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, aggregate, sequence);
    }
  }
}
