package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-aggregate order when a writer is slow between taking its row's position and taking the
 * aggregate's sequence (FAULTS A8/B11, DESIGN.md guarantee 4). The relay claims in position order
 * and the aggregate's sequence is the commit order, so the two must agree within an aggregate.
 *
 * <p>A test-only {@code BEFORE INSERT} trigger that fires before Twinbox's own ones stalls one
 * writer for 3 s — what a descheduled or slow writer does — right after PostgreSQL evaluated the
 * row's defaults (the {@code position} identity) and before Twinbox's sequence trigger ran. A
 * second writer of the same aggregate starts meanwhile. Then a relay with batches of 10 drains the
 * backlog (9 earlier events of other aggregates first, so the batch boundary falls between the
 * two).
 */
class PositionOrderTest {
  private static final String AGGREGATE = "order-stalled";
  private TestDb db;

  @BeforeEach
  void database() throws Exception {
    db = Scenario.migratedDatabase();
    if (TestDb.MARIADB) {
      // MariaDB orders triggers of one event explicitly; DO SLEEP shows as state 'User sleep'.
      Db.exec(db.dataSource(), """
          CREATE TRIGGER twinbox_a_stall_writer BEFORE INSERT ON twinbox_outbox FOR EACH ROW
            PRECEDES twinbox_outbox_sequence
          BEGIN
            IF JSON_EXISTS(NEW.payload, '$.stall_ms') THEN
              DO SLEEP(JSON_VALUE(NEW.payload, '$.stall_ms') / 1000);
            END IF;
          END""");
      return;
    }
    Db.exec(db.dataSource(), """
        CREATE FUNCTION it_stall_writer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.payload ? 'stall_ms' THEN PERFORM pg_sleep((NEW.payload->>'stall_ms')::int / 1000.0); END IF;
          RETURN NEW;
        END $$;
        -- Fires before twinbox_outbox_sequence: triggers of one event fire in name order.
        CREATE TRIGGER twinbox_a_stall_writer BEFORE INSERT ON twinbox_outbox
          FOR EACH ROW EXECUTE FUNCTION it_stall_writer();""");
  }

  @AfterEach
  void drop() {
    if (db != null) {
      db.close();
    }
  }

  /** The plain-SQL path of the schema (sequence left NULL, assigned by twinbox_assign_sequence). */
  @Test
  void plainSqlWritersOfOneAggregateArePublishedInSequenceOrder() throws Exception {
    run("plain-sql", false, this::insertPlainSql);
  }

  /** The Java path ({@code Outbox.write}) for comparison. */
  @Test
  void javaWritersOfOneAggregateArePublishedInSequenceOrder() throws Exception {
    Outbox outbox = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).build();
    run("java", true, stall -> {
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        UUID id = outbox.write(c, OutboxEvent.builder("OrderChanged", 1).aggregate(Workload.AGGREGATE_TYPE, AGGREGATE)
            .payload(stall ? "{\"stall_ms\":3000}" : "{}").build());
        c.commit();
        return id;
      }
    });
  }

  private interface Writer {
    UUID write(boolean stall) throws Exception;
  }

  private void run(String path, boolean fastWaitsForSlow, Writer writer) throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-position-" + path);
    broker.createTopic(topic, 4);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        ids.add(outbox.write(c, OutboxEvent.builder("OrderChanged", 1).aggregate(Workload.AGGREGATE_TYPE, "order-" + i)
            .payload("{}").build()));
        c.commit();
      }
    }
    CompletableFuture<UUID> slow = CompletableFuture.supplyAsync(() -> call(writer, true));
    await("the slow writer stalls inside its INSERT").atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20)).until(() -> stalledWriters() == 1);
    CompletableFuture<UUID> quick = CompletableFuture.supplyAsync(() -> call(writer, false));
    if (fastWaitsForSlow) {
      // Java path: the counter lock, taken before the position, makes the second writer wait.
      Thread.sleep(500);
      assertThat(quick).as("second writer waits for the stalled one").isNotDone();
    } else {
      // Plain-SQL path: the race window is really hit when the second writer commits while the
      // first one still stalls between its position and its sequence.
      quick.get();
    }
    assertThat(stalledWriters()).as("slow writer still stalled").isEqualTo(1);
    UUID fast = quick.get();
    UUID stalled = slow.get();
    ids.add(stalled);
    ids.add(fast);

    List<ExpectedEvent> committed = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT id, aggregate_id, sequence, position FROM twinbox_outbox ORDER BY position")) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          UUID id = UUID.fromString(rs.getString(1));
          committed.add(ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, rs.getString(2), rs.getLong(3)));
          if (AGGREGATE.equals(rs.getString(2))) {
            rows.add((id.equals(stalled) ? "stalled" : "fast") + "(position " + rs.getLong(4) + ", sequence "
                + rs.getLong(3) + ")");
          }
        }
      }
    }
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-position").workers(1).batchSize(10).build()) {
      relay.start();
      await("outbox drained").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> Db.outboxRows(db.dataSource()) == 0);
    }
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, committed, List.of(),
        Duration.ofSeconds(30));
    Scenario.report("A8-" + path, result.summary() + " rows=" + rows + " runtimeMs=" + Scenario.millisSince(started));

    assertThat(result.lost()).isZero();
    assertThat(result.orderViolations()).as(result.describe(10) + "\n  rows of " + AGGREGATE + ": " + rows).isZero();
  }

  private long stalledWriters() {
    if (TestDb.MARIADB) {
      return Db.count(db.dataSource(), "SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE()"
          + " AND state = 'User sleep' AND info LIKE '%stall_ms%'"); // info is the trigger's statement
    }
    return Db.count(db.dataSource(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        + " AND wait_event = 'PgSleep' AND query LIKE '%INSERT%'");
  }

  private static UUID call(Writer writer, boolean stall) {
    try {
      return writer.write(stall);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private UUID insertPlainSql(boolean stall) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(TestDb.MARIADB ? """
            INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, type, version, payload)
            VALUES (UUID(), ?, ?, 'OrderChanged', 1, ?) RETURNING id""" : """
            INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, type, version, payload)
            VALUES (gen_random_uuid(), ?, ?, 'OrderChanged', 1, ?::jsonb) RETURNING id""")) {
      c.setAutoCommit(true);
      ps.setString(1, Workload.AGGREGATE_TYPE);
      ps.setString(2, AGGREGATE);
      ps.setString(3, stall ? "{\"stall_ms\":3000}" : "{}");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return UUID.fromString(rs.getString(1));
      }
    }
  }
}
