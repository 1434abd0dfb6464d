package io.twinbox.jdbc;

import static io.twinbox.jdbc.PgTestSupport.count;
import static io.twinbox.jdbc.PgTestSupport.event;
import static io.twinbox.jdbc.PgTestSupport.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.DuplicateMessageIdException;
import io.twinbox.InvalidEventException;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.SchemaNotMigratedException;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The write path on a real PostgreSQL: one transaction, rollback, bad input, sequences. */
class PostgresOutboxWriteTest {
  static PostgresDatabase db;
  static JdbcStore store;
  static Outbox outbox;

  @BeforeAll
  static void setUp() {
    db = PostgresDatabase.create();
    store = PgTestSupport.migratedStore(db);
    outbox = Outbox.builder(store).maxPayloadBytes(10_000).build();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void clean() throws Exception {
    exec(db.dataSource(), "TRUNCATE twinbox_outbox, twinbox_aggregate");
  }

  @Test
  void committedEventsAreStoredWithGapFreeSequencesAndRolledBackOnesLeaveNothing() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1", 1));
      outbox.write(c, event("o-1", 2));
      c.rollback();
      outbox.write(c, event("o-1", 3));
      outbox.writeAll(c, List.of(event("o-1", 4), event("o-2", 1)));
      c.commit();
    }
    assertThat(count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox")).isEqualTo(3);
    assertThat(PgTestSupport.strings(db.dataSource(),
        "SELECT aggregate_id || ':' || sequence || ':' || (payload->>'n') FROM twinbox_outbox ORDER BY position"))
        .containsExactly("o-1:1:3", "o-1:2:4", "o-2:1:1");
  }

  @Test
  void writingOnAnAutoCommitConnectionFailsAndWritesNothing() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(true);
      assertThatThrownBy(() -> outbox.write(c, event("o-1", 1)))
          .isInstanceOf(NoActiveTransactionException.class)
          .hasMessageContaining("auto-commit");
    }
    assertThat(count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox")).isZero();
  }

  @Test
  void badInputIsATypedErrorNamingTheField() {
    assertThatThrownBy(() -> OutboxEvent.builder(" ", 1).aggregate("Order", "1").payload("{}").build())
        .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("type");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 0).aggregate("Order", "1").payload("{}").build())
        .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("version");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).aggregate("Order", "1").payload("{\"a\":").build())
        .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("payload");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).aggregate("Order", "1").payload("{}")
        .header("x-tenant", "a\r\nInjected: yes").build())
        .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("headers.x-tenant");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).aggregate("Order", "1").payload("{}")
        .header("ce_id", "forged").build())
        .isInstanceOf(InvalidEventException.class).hasMessageContaining("reserved");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).aggregate("Order", "1").payload("{}")
        .header("bad name", "v").build())
        .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("headers");
  }

  @Test
  void oversizedPayloadIsRefusedBeforeAnythingIsWritten() throws Exception {
    String big = "{\"x\":\"" + "é".repeat(6_000) + "\"}"; // 12,008 UTF-8 bytes > 10,000
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1", 1));
      assertThatThrownBy(() -> outbox.write(c, OutboxEvent.builder("Big", 1).aggregate("Order", "o-1").payload(big).build()))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("12008 bytes, limit 10000");
      c.commit(); // the transaction is still usable: the limit is checked before any SQL
    }
    assertThat(count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
  }

  @Test
  void aDuplicateCallerSuppliedIdFailsAtWriteTime() throws Exception {
    UUID id = UUID.randomUUID();
    OutboxEvent e = OutboxEvent.builder("T", 1).id(id).aggregate("Order", "o-9").payload("{}").build();
    PgTestSupport.writeCommitted(db.dataSource(), outbox, e);
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> outbox.write(c, e))
          .isInstanceOf(DuplicateMessageIdException.class)
          .hasMessageContaining(id.toString());
      c.rollback();
    }
    assertThat(count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
    // The rolled-back attempt did not consume a sequence number either.
    assertThat(count(db.dataSource(), "SELECT last_sequence FROM twinbox_aggregate WHERE aggregate_id = 'o-9'")).isEqualTo(1);
  }

  @Test
  void anUnmigratedSchemaIsNamedAsSuch() {
    try (PostgresDatabase empty = PostgresDatabase.create()) {
      JdbcStore bare = JdbcStore.builder(empty.dataSource()).build();
      Outbox o = Outbox.builder(bare).build();
      assertThatThrownBy(bare::verifySchema).isInstanceOf(SchemaNotMigratedException.class);
      assertThatThrownBy(() -> PgTestSupport.writeCommitted(empty.dataSource(), o, event("o-1", 1)))
          .isInstanceOf(SchemaNotMigratedException.class)
          .hasMessageContaining("migrate");
    }
  }

  @Test
  void migrationIsIdempotent() {
    store.migrate();
    store.migrate();
    store.verifySchema();
  }

  @Test
  void concurrentWritersOfOneAggregateGetGapFreeSequencesInCommitOrder() throws Exception {
    int threads = 8;
    int txPerThread = 150;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        for (int i = 0; i < txPerThread; i++) {
          String agg = "hot-" + ThreadLocalRandom.current().nextInt(5);
          try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.write(c, event(agg, i));
            if (ThreadLocalRandom.current().nextInt(10) == 0) {
              c.rollback();
            } else {
              c.commit();
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    Map<String, List<Long>> seqs = new HashMap<>();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT aggregate_id, sequence FROM twinbox_outbox ORDER BY position")) {
      while (rs.next()) {
        seqs.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(2));
      }
    }
    long total = 0;
    for (List<Long> s : seqs.values()) {
      total += s.size();
      for (int i = 0; i < s.size(); i++) {
        assertThat(s.get(i)).as("sequence in position order, no gaps").isEqualTo(i + 1L);
      }
    }
    assertThat(total).isEqualTo(count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox"));
    assertThat(total).isBetween(threads * txPerThread * 7L / 10, threads * (long) txPerThread);
  }
}
