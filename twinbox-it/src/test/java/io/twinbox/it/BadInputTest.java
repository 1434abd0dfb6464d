package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.InvalidEventException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.SchemaNotMigratedException;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 7, the end-to-end part (the rules themselves are unit-tested in twinbox-jdbc and
 * twinbox-core): writing to a database whose schema was never migrated fails with a typed error
 * that says what to do, and a bad event in the middle of {@code writeAll} leaves nothing
 * half-written — neither in the outbox nor, with a relay running, on the broker — and no gap in
 * the aggregate's sequence.
 */
class BadInputTest {
  private static final String AGGREGATE = "order-bad-input";
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
  void writeToUnmigratedDatabaseFailsWithSchemaNotMigrated() throws Exception {
    try (TestDb empty = TestDb.create()) {
      JdbcStore store = JdbcStore.builder(empty.dataSource()).build();
      Outbox outbox = Outbox.builder(store).build();
      try (Connection c = empty.dataSource().getConnection()) {
        c.setAutoCommit(false);
        assertThatThrownBy(() -> outbox.write(c, event("{}")))
            .isInstanceOf(SchemaNotMigratedException.class)
            .hasMessageContaining("migrate");
        c.rollback();
      }
      try (Relay relay = Relay.builder(store, RecordingTransport.acking()).build()) {
        assertThatThrownBy(relay::start).isInstanceOf(SchemaNotMigratedException.class);
      }
      Scenario.report("A-schema", "write and relay start on an unmigrated database: SchemaNotMigratedException");
    }
  }

  @Test
  void badEventInTheMiddleOfWriteAllLeavesNothingHalfWritten() throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-bad-input");
    broker.createTopic(topic, 4);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).maxPayloadBytes(1_024).build();
    List<ExpectedEvent> committed = new ArrayList<>();
    List<UUID> rejected = new ArrayList<>();
    long outboxRowsAfterInvalid;
    long outboxRowsAfterDuplicate;
    // MARK keeps published rows, so the id reused below is still in the outbox when it is reused
    // (with DELETE see callerIdReusedAfterItsEventWasPublishedIsRejected).
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-bad-input").completionMode(CompletionMode.MARK).build()) {
      relay.start();
      committed.add(write(outbox, List.of(event("{\"n\":1}"))).get(0));
      long ordersBefore = Db.count(db.dataSource(), "SELECT count(*) FROM orders");

      // 1. An oversized payload between two good events: refused before anything reaches the
      //    database, so even a caller that commits anyway stores none of the three.
      UUID good1 = UUID.randomUUID();
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        insertOrder(c);
        List<OutboxEvent> batch = List.of(event(good1, "{\"n\":2}"), event("{\"big\":\"" + "x".repeat(2_000) + "\"}"),
            event("{\"n\":3}"));
        assertThatThrownBy(() -> outbox.writeAll(c, batch))
            .isInstanceOf(InvalidEventException.class)
            .hasMessageContaining("payload")
            .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("payload"));
        c.commit();
      }
      rejected.add(good1);
      outboxRowsAfterInvalid = Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE id = '" + good1 + "'");

      // 2. A duplicate message id between two good events: the database refuses the statement,
      //    the caller rolls back, and neither the business row nor any of the events remain.
      UUID good2 = UUID.randomUUID();
      UUID good3 = UUID.randomUUID();
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        insertOrder(c);
        List<OutboxEvent> batch = List.of(event(good2, "{\"n\":4}"), event(committed.get(0).id(), "{\"n\":5}"),
            event(good3, "{\"n\":6}"));
        assertThatThrownBy(() -> outbox.writeAll(c, batch)).isInstanceOf(DuplicateMessageIdException.class);
        c.rollback();
      }
      rejected.add(good2);
      rejected.add(good3);
      outboxRowsAfterDuplicate = Db.count(db.dataSource(),
          "SELECT count(*) FROM twinbox_outbox WHERE id IN ('" + good2 + "', '" + good3 + "')");
      assertThat(Db.count(db.dataSource(), "SELECT count(*) FROM orders")).isEqualTo(ordersBefore + 1);

      // 3. The aggregate goes on without a gap: the rolled-back writes gave their sequences back.
      committed.add(write(outbox, List.of(event("{\"n\":7}"))).get(0));
      await("outbox drained").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'") == 0);
    }
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, committed, rejected,
        Duration.ofSeconds(30));
    Scenario.report("A-half", result.summary() + " rejectedIds=" + rejected.size() + " sequences="
        + committed.stream().map(ExpectedEvent::sequence).toList() + " runtimeMs=" + Scenario.millisSince(started));

    assertThat(outboxRowsAfterInvalid).isZero();
    assertThat(outboxRowsAfterDuplicate).isZero();
    assertThat(committed.stream().map(ExpectedEvent::sequence).toList()).containsExactly(1L, 2L);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.phantom()).isZero();
    assertThat(result.duplicates()).isZero();
  }

  /**
   * The error must name the id that collided, not merely the first caller-supplied id of the
   * batch: an operator looks that id up.
   */
  @Test
  void duplicateIdErrorNamesTheCollidingId() throws Exception {
    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    UUID existing = UUID.randomUUID();
    write(outbox, List.of(event(existing, "{\"n\":1}")));
    UUID fresh = UUID.randomUUID();
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      List<OutboxEvent> batch = List.of(event(fresh, "{\"n\":2}"), event(existing, "{\"n\":3}"));
      assertThatThrownBy(() -> outbox.writeAll(c, batch))
          .isInstanceOf(DuplicateMessageIdException.class)
          .satisfies(e -> assertThat(((DuplicateMessageIdException) e).messageId())
              .as("the colliding id (%s), not the fresh one (%s)", existing, fresh)
              .isEqualTo(existing))
          .hasMessageContaining(existing.toString());
      c.rollback();
    }
  }

  /**
   * FAULTS A4: a caller-supplied id that was used before must fail at write time — also after the
   * first event was published and its row deleted (the default completion mode). Otherwise the
   * second, different event is published under an id every consumer's inbox has already
   * processed, and is silently dropped downstream.
   */
  @Test
  void callerIdReusedAfterItsEventWasPublishedIsRejected() throws Exception {
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-reused-id");
    broker.createTopic(topic, 4);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    UUID id = UUID.randomUUID();
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-reused-id").build()) {
      relay.start();
      write(outbox, List.of(event(id, "{\"first\":true}")));
      await("first event published and deleted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE id = '" + id + "'") == 0);
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        Throwable thrown = null;
        try {
          outbox.write(c, event(id, "{\"second\":true}"));
          c.commit();
        } catch (RuntimeException e) {
          thrown = e;
          c.rollback();
        }
        Scenario.report("A4-reuse", "second write with an id already published (and deleted): "
            + (thrown == null ? "ACCEPTED (published again under the same id)" : thrown.getClass().getSimpleName()));
        assertThat(thrown).as("write reusing the id of an already published event")
            .isInstanceOf(DuplicateMessageIdException.class);
      }
    }
  }

  private static OutboxEvent event(String payload) {
    return event(null, payload);
  }

  private static OutboxEvent event(UUID id, String payload) {
    return OutboxEvent.builder("OrderChanged", 1).id(id).aggregate(Workload.AGGREGATE_TYPE, AGGREGATE)
        .payload(payload).build();
  }

  private static void insertOrder(Connection c) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (aggregate_id, note) VALUES (?, 'bad input')")) {
      ps.setString(1, AGGREGATE);
      ps.executeUpdate();
    }
  }

  private static List<ExpectedEvent> write(Outbox outbox, List<OutboxEvent> events) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      List<UUID> ids = outbox.writeAll(c, events);
      var sequences = Workload.sequences(c, ids);
      c.commit();
      return ids.stream().map(id -> ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, AGGREGATE, sequences.get(id))).toList();
    }
  }
}
