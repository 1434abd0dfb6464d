package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.InvalidEventException;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.SchemaNotMigratedException;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The write path every store must keep: one transaction with the business change, nothing left by
 * a rollback, typed errors for bad input, gap-free per-aggregate sequences in commit order under
 * concurrency. A store runs it by a subclass that supplies a {@link StoreFixture}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class OutboxWriteContract {
  private StoreFixture fixture;
  private DataSource ds;
  private Outbox outbox;

  /** A fresh fixture for this test class. */
  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
    outbox = Outbox.builder(fixture.store()).maxPayloadBytes(10_000).build();
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

  /** {@code aggregate_id|sequence|payload} of every row, in position order. */
  private List<String> rows() throws Exception {
    return fixture.outboxRows().stream().map(r -> r.aggregateId() + "|" + r.sequence() + "|" + r.payload()).toList();
  }

  /** What the relay does once the broker acknowledged: claims every row and completes it (DELETE). */
  private void publishAndDeleteAll() {
    OutboxStore store = fixture.store();
    List<PartitionLease> leases = store.acquire("cleaner", store.partitionCount(), Duration.ofSeconds(30));
    List<OutboxMessage> claimed = store.claim("cleaner", leases, 10_000).stream().map(OutboxMessage.class::cast).toList();
    store.complete("cleaner", leases, claimed, List.of(), CompletionMode.DELETE);
    store.release("cleaner", leases);
  }

  static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId)
        .payload("{\"order\":\"" + aggregateId + "\",\"n\":" + n + "}").build();
  }

  @Test
  final void committedEventsAreStoredWithGapFreeSequencesAndRolledBackOnesLeaveNothing() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1", 1));
      outbox.write(c, event("o-1", 2));
      c.rollback();
      outbox.write(c, event("o-1", 3));
      outbox.writeAll(c, List.of(event("o-1", 4), event("o-2", 1)));
      c.commit();
    }
    // Stores may normalise JSON (PostgreSQL's jsonb adds spaces): compare without whitespace.
    assertThat(rows())
        .extracting(r -> r.replace(" ", ""))
        .hasSize(3)
        .satisfies(r -> assertThat(r.get(0)).startsWith("o-1|1|").contains("\"n\":3"))
        .satisfies(r -> assertThat(r.get(1)).startsWith("o-1|2|").contains("\"n\":4"))
        .satisfies(r -> assertThat(r.get(2)).startsWith("o-2|1|").contains("\"n\":1"));
  }

  @Test
  final void writingOnAnAutoCommitConnectionFailsAndWritesNothing() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      assertThatThrownBy(() -> outbox.write(c, event("o-1", 1)))
          .isInstanceOf(NoActiveTransactionException.class).hasMessageContaining("auto-commit");
    }
    assertThat(rowCount()).isZero();
  }

  @Test
  final void oversizedPayloadIsRefusedBeforeAnythingIsWritten() throws Exception {
    String big = "{\"x\":\"" + "é".repeat(6_000) + "\"}"; // 12,008 UTF-8 bytes > 10,000
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1", 1));
      assertThatThrownBy(() -> outbox.write(c, OutboxEvent.builder("Big", 1).aggregate("Order", "o-1").payload(big).build()))
          .isInstanceOf(InvalidEventException.class).hasMessageContaining("12008 bytes, limit 10000");
      c.commit(); // still usable: the limit is checked before any SQL
    }
    assertThat(rowCount()).isEqualTo(1);
  }

  /**
   * Issue 22: payloads PostgreSQL's jsonb refuses (a NUL character, a lone surrogate, a number out
   * of its numeric range) used to pass the write rules: an untyped database error on PostgreSQL, a
   * stored row on MariaDB that every PostgreSQL consumer would choke on. Every store now refuses
   * them with {@code InvalidEventException} naming the payload, writes nothing, and keeps the
   * transaction usable; the largest values jsonb still takes are stored.
   */
  @Test
  final void payloadsJsonbCannotStoreAreRefusedAtWriteAndTheLimitsStillFit() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (String bad : List.of("{\"a\":\"\\u0000\"}", "1e999999", "[1e-16384]", "\"\\ud800\"")) {
        assertThatThrownBy(() -> outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "o-j").payload(bad).build()))
            .as(bad).isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("payload");
      }
      for (String edge : List.of("[1e131071]", "[1e-16383]", "{\"a\":\"\\ud83d\\ude00\"}")) {
        outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "o-j").payload(edge).build());
      }
      c.commit();
    }
    assertThat(rowCount()).isEqualTo(3);
    assertThat(fixture.lastSequence("Order", "o-j")).isEqualTo(3);
  }

  @Test
  final void aDuplicateCallerSuppliedIdFailsAtWriteTime() throws Exception {
    UUID id = UUID.randomUUID();
    OutboxEvent e = OutboxEvent.builder("T", 1).id(id).aggregate("Order", "o-9").payload("{}").build();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, e);
      c.commit();
      assertThatThrownBy(() -> outbox.write(c, e))
          .isInstanceOf(DuplicateMessageIdException.class).hasMessageContaining(id.toString());
      c.rollback();
    }
    assertThat(rowCount()).isEqualTo(1);
    assertThat(fixture.lastSequence("Order", "o-9"))
        .as("the rolled-back attempt consumed no sequence number").isEqualTo(1);
  }

  @Test
  final void aCallerSuppliedIdIsRefusedEvenAfterItsEventWasPublishedAndDeleted() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder("T", 1).id(id).aggregate("Order", "o-7").payload("{}").build());
      c.commit();
    }
    publishAndDeleteAll();
    assertThat(rowCount()).isZero();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> outbox.write(c,
          OutboxEvent.builder("Other", 1).id(id).aggregate("Order", "o-8").payload("{\"x\":1}").build()))
          .isInstanceOf(DuplicateMessageIdException.class).hasMessageContaining(id.toString());
      c.rollback();
    }
    assertThat(rowCount()).isZero();
  }

  @Test
  final void theDuplicateErrorNamesTheIdThatCollided() throws Exception {
    UUID existing = UUID.randomUUID();
    UUID fresh = UUID.randomUUID();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder("T", 1).id(existing).aggregate("Order", "o-1").payload("{}").build());
      c.commit();
      Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> outbox.writeAll(c, List.of(
          OutboxEvent.builder("T", 1).id(fresh).aggregate("Order", "o-2").payload("{}").build(),
          OutboxEvent.builder("T", 1).id(existing).aggregate("Order", "o-3").payload("{}").build())));
      c.rollback();
      assertThat(t).isInstanceOf(DuplicateMessageIdException.class);
      assertThat(((DuplicateMessageIdException) t).messageId()).isEqualTo(existing);
    }
  }

  @Test
  final void anUnmigratedSchemaIsNamedAsSuch() throws Exception {
    assumeTrue(fixture.unmigratedStore() != null, fixture.name() + " has no schema to migrate");
    Outbox o = Outbox.builder(fixture.unmigratedStore()).build();
    assertThatThrownBy(() -> fixture.unmigratedStore().verifySchema()).isInstanceOf(SchemaNotMigratedException.class);
    try (Connection c = fixture.unmigratedDataSource().getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> o.write(c, event("o-1", 1)))
          .isInstanceOf(SchemaNotMigratedException.class).hasMessageContaining("migrate");
      c.rollback();
    }
  }

  @Test
  final void theSchemaIsVerified() {
    fixture.store().verifySchema();
  }

  @Test
  final void concurrentWritersOfOneAggregateGetGapFreeSequencesInCommitOrder() throws Exception {
    int threads = 8;
    int txPerThread = 150;
    java.util.concurrent.atomic.AtomicInteger deadlocks = new java.util.concurrent.atomic.AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < txPerThread; i++) {
            String agg = "hot-" + ThreadLocalRandom.current().nextInt(5);
            boolean rollback = ThreadLocalRandom.current().nextInt(10) == 0;
            // FAULTS A8: concurrent writers may deadlock (e.g. MariaDB's gap locks when new
            // aggregates' counter rows are created at once); the caller retries its transaction.
            for (int attempt = 1; ; attempt++) {
              try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try {
                  outbox.write(c, event(agg, i));
                  if (rollback) {
                    c.rollback();
                  } else {
                    c.commit();
                  }
                  break;
                } catch (RuntimeException | java.sql.SQLException e) {
                  c.rollback();
                  if (!transientConflict(e) || attempt == 10) {
                    throw e;
                  }
                  deadlocks.incrementAndGet();
                }
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)).as("writers stopped").isTrue();
    }
    Map<String, List<Long>> seqs = new HashMap<>();
    for (String row : rows()) {
      String[] p = row.split("\\|");
      seqs.computeIfAbsent(p[0], k -> new ArrayList<>()).add(Long.parseLong(p[1]));
    }
    long total = 0;
    for (List<Long> s : seqs.values()) {
      total += s.size();
      for (int i = 0; i < s.size(); i++) {
        assertThat(s.get(i)).as("sequence in position order, no gaps").isEqualTo(i + 1L);
      }
    }
    assertThat(total).isBetween(threads * txPerThread * 7L / 10, threads * (long) txPerThread);
    System.out.println("[A8 " + fixture.name() + "] transactions=" + threads * txPerThread + " committed=" + total
        + " deadlocksRetried=" + deadlocks.get());
  }

  /** SQLSTATE class 40 (serialization failure, deadlock) anywhere in the cause chain. */
  private static boolean transientConflict(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof java.sql.SQLException se && se.getSQLState() != null && se.getSQLState().startsWith("40")) {
        return true;
      }
    }
    return false;
  }
}
