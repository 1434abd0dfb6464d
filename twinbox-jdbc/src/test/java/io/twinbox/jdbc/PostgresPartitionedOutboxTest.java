package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The outbox partitioned by time on a real PostgreSQL: conversion of a plain outbox, ids without a
 * unique index, partitions created ahead by the relay across boundaries, and dropping old partitions
 * while a relay and a writer run. Partitions of 2 seconds (set in the database, below the builder's
 * one-minute floor) make boundaries come fast.
 */
class PostgresPartitionedOutboxTest {
  private static final Duration SHORT = Duration.ofSeconds(2);

  @Test
  void convertingAPlainOutboxKeepsRowsAndPositionsAndContinuesAfterThem() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      DataSource ds = db.dataSource();
      JdbcStore plain = JdbcStore.builder(ds).build();
      plain.migrate();
      Outbox outbox = Outbox.builder(plain).build();
      List<UUID> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ids.add(write(ds, outbox, OutboxEvent.builder("T", 1).aggregate("Order", "o-1").payload("{\"n\":" + i + "}").build()));
      }
      UUID supplied = UUID.randomUUID();
      write(ds, outbox, OutboxEvent.builder("T", 1).id(supplied).unordered("Audit").payload("{}").build());
      Sql.exec(ds, "UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = clock_timestamp()"
          + " WHERE sequence <= 2 AND aggregate_id = 'o-1'");
      List<String> before = Sql.rows(ds, "SELECT position, id, sequence, status, created_at FROM twinbox_outbox ORDER BY position");
      assertThat(plain.outboxPartitioned()).isFalse();

      JdbcStore partitioned = JdbcStore.builder(ds).partitionedOutbox().build();
      partitioned.migrate();
      partitioned.migrate(); // idempotent

      assertThat(partitioned.outboxPartitioned()).isTrue();
      assertThat(Sql.rows(ds, "SELECT position, id, sequence, status, created_at FROM twinbox_outbox ORDER BY position"))
          .isEqualTo(before);
      assertThat(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox_default")).containsExactly("0");
      assertThat(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox_partitions WHERE upper_bound > clock_timestamp()"))
          .as("today's partition and 3 ahead").containsExactly("4");
      long maxBefore = Long.parseLong(Sql.rows(ds, "SELECT max(position) FROM twinbox_outbox").get(0));
      UUID after = write(ds, Outbox.builder(partitioned).build(),
          OutboxEvent.builder("T", 1).aggregate("Order", "o-1").payload("{}").build());
      assertThat(Sql.rows(ds, "SELECT position, sequence FROM twinbox_outbox WHERE id = ?", after))
          .containsExactly((maxBefore + 1) + "|6");
      assertThatThrownBy(() -> write(ds, Outbox.builder(partitioned).build(),
          OutboxEvent.builder("T", 1).id(supplied).unordered("Audit").payload("{}").build()))
          .as("an id supplied before the conversion").isInstanceOf(DuplicateMessageIdException.class);
    }
  }

  /**
   * No unique index on {@code id} can exist on the partitioned table; the ledger keeps a supplied
   * id unique even after its row left the outbox (DELETE completion), on the Java path and on the
   * plain-SQL path.
   */
  @Test
  void aReusedSuppliedIdIsRefusedWithoutAUniqueIndexOnId() throws Exception {
    try (JdbcFixture f = JdbcFixture.postgresPartitioned()) {
      DataSource ds = f.dataSource();
      assertThat(Sql.rows(ds, "SELECT count(*) FROM pg_indexes WHERE tablename = 'twinbox_outbox'"
          + " AND indexdef LIKE 'CREATE UNIQUE INDEX%' AND indexdef LIKE '%(id)%'")).containsExactly("0");
      Outbox outbox = Outbox.builder(f.store()).build();
      UUID id = UUID.randomUUID();
      write(ds, outbox, OutboxEvent.builder("T", 1).id(id).aggregate("Order", "o-1").payload("{}").build());
      RecordingTransport t = RecordingTransport.acking();
      try (Relay r = Relay.builder(f.store(), t).completionMode(CompletionMode.DELETE)
          .pollInterval(Duration.ofMillis(20)).leaseTtl(Duration.ofSeconds(2)).build()) {
        r.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> f.outboxRows().isEmpty());
      }
      assertThatThrownBy(() -> write(ds, outbox, OutboxEvent.builder("T", 1).id(id).aggregate("Order", "o-2")
          .payload("{}").build())).isInstanceOfSatisfying(DuplicateMessageIdException.class,
              e -> assertThat(e.messageId()).isEqualTo(id));
      assertThatThrownBy(() -> Sql.exec(ds, "INSERT INTO twinbox_outbox (id, aggregate_type, type, version, payload)"
          + " VALUES ('" + id + "', 'Audit', 'T', 1, '{}')")).hasMessageContaining("twinbox_supplied_id_pkey");
      assertThat(f.outboxRows()).isEmpty();
    }
  }

  /**
   * An id the writer generated is not in the ledger; supplied later while its row is kept (MARK), it
   * is refused all the same, on the Java path (alone or in a batch) and on the plain-SQL path.
   */
  @Test
  void aGeneratedIdSuppliedAgainIsRefusedWhileItsRowIsKept() throws Exception {
    try (JdbcFixture f = JdbcFixture.postgresPartitioned()) {
      DataSource ds = f.dataSource();
      Outbox outbox = Outbox.builder(f.store()).build();
      UUID generated = write(ds, outbox, OutboxEvent.builder("T", 1).aggregate("Order", "o-1").payload("{}").build());
      assertThatThrownBy(() -> write(ds, outbox, OutboxEvent.builder("T", 1).id(generated).aggregate("Order", "o-2")
          .payload("{}").build())).isInstanceOfSatisfying(DuplicateMessageIdException.class,
              e -> assertThat(e.messageId()).isEqualTo(generated));
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        assertThatThrownBy(() -> outbox.writeAll(c, List.of(
            OutboxEvent.builder("T", 1).id(UUID.randomUUID()).aggregate("Order", "o-3").payload("{}").build(),
            OutboxEvent.builder("T", 1).id(generated).aggregate("Order", "o-3").payload("{}").build())))
            .isInstanceOfSatisfying(DuplicateMessageIdException.class, e -> assertThat(e.messageId()).isEqualTo(generated));
        c.rollback();
      }
      assertThatThrownBy(() -> Sql.exec(ds, "INSERT INTO twinbox_outbox (id, aggregate_type, type, version, payload)"
          + " VALUES ('" + generated + "', 'Audit', 'T', 1, '{}')")).hasMessageContaining("already in twinbox_outbox");
      assertThat(f.outboxRows()).hasSize(1);
    }
  }

  /**
   * Writers and a relay run across several partition boundaries: the relay's heartbeat creates the
   * partitions ahead (the DEFAULT partition refuses every row meanwhile, so a write without its
   * partition would fail the writer), and every committed event is published, per aggregate in order.
   */
  @ParameterizedTest
  @EnumSource(CompletionMode.class)
  void aRelayAcrossPartitionBoundariesLosesNothingAndKeepsOrder(CompletionMode mode) throws Exception {
    try (JdbcFixture f = JdbcFixture.postgresPartitioned()) {
      DataSource ds = f.dataSource();
      shortPartitions(ds, f.jdbcStore(), 2);
      Sql.exec(ds, "ALTER TABLE twinbox_outbox_default ADD CONSTRAINT twinbox_test_no_row CHECK (false)");
      String coveredBefore = Sql.rows(ds, "SELECT max(upper_bound) FROM twinbox_outbox_partitions").get(0);
      Outbox outbox = Outbox.builder(f.store()).build();
      RecordingTransport t = RecordingTransport.acking();
      List<ExpectedEvent> committed = Collections.synchronizedList(new ArrayList<>());
      AtomicReference<Throwable> writerFailure = new AtomicReference<>();
      long writeUntil = System.nanoTime() + Duration.ofSeconds(9).toNanos();
      try (Relay r = Relay.builder(f.store(), t).completionMode(mode).pollInterval(Duration.ofMillis(20))
          .leaseTtl(Duration.ofSeconds(2)).build()) {
        r.start();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
          int writer = w;
          Thread th = new Thread(() -> {
            try (Connection c = ds.getConnection()) {
              c.setAutoCommit(false);
              for (int n = 0; System.nanoTime() < writeUntil; n++) {
                String aggregate = "w" + writer + "-" + (n % 5);
                UUID id = outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", aggregate)
                    .payload("{\"n\":" + n + "}").build());
                c.commit();
                committed.add(ExpectedEvent.ordered(id, "Order", aggregate, n / 5 + 1));
                Thread.sleep(5);
              }
            } catch (Throwable e) {
              writerFailure.set(e);
            }
          });
          th.start();
          writers.add(th);
        }
        for (Thread th : writers) {
          th.join();
        }
        assertThat(writerFailure.get()).as("a writer's failure").isNull();
        await().atMost(Duration.ofSeconds(30)).until(() -> t.acked().stream().map(OutboxMessage::id)
            .collect(Collectors.toSet()).size() >= committed.size());
      }
      List<Delivery> deliveries = new ArrayList<>();
      long offset = 0;
      for (OutboxMessage m : t.acked()) {
        deliveries.add(new Delivery("outbox", 0, offset++, m.aggregateId(), m.id(), m.aggregateType(), m.aggregateId(),
            m.sequence()));
      }
      CheckResult result = DeliveryChecker.check(committed, List.of(), deliveries);
      assertThat(result.ok()).as(result.describe(10)).isTrue();
      assertThat(result.lost()).isZero();
      assertThat(result.orderViolations()).isZero();
      long created = Long.parseLong(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox_partitions"
          + " WHERE lower_bound >= ?::timestamptz", coveredBefore).get(0));
      assertThat(created).as("partitions the relay created while it ran").isGreaterThanOrEqualTo(2);
      if (mode == CompletionMode.MARK) {
        assertThat(Sql.rows(ds, "SELECT count(DISTINCT tableoid) FROM twinbox_outbox").get(0))
            .as("partitions the rows landed in").satisfies(n -> assertThat(Integer.parseInt(n)).isGreaterThanOrEqualTo(4));
        assertThat(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox WHERE status <> 'PUBLISHED'")).containsExactly("0");
      } else {
        assertThat(f.outboxRows()).isEmpty();
      }
      System.out.printf("partition boundary run (%s): %d events committed, %d deliveries, %d partitions created by"
          + " the relay%n", mode, committed.size(), deliveries.size(), created);
    }
  }

  /**
   * Dropping old partitions while a relay and a writer run: a partition holding a FAILED row and a
   * PENDING row (waiting for its retry) is kept, one holding PUBLISHED rows only goes, and nothing
   * pending is lost. Once its last unpublished row is gone, the kept partition goes too.
   */
  @Test
  void aPartitionHoldingPendingOrFailedRowsIsNeverDropped() throws Exception {
    try (JdbcFixture f = JdbcFixture.postgresPartitioned()) {
      DataSource ds = f.dataSource();
      JdbcStore store = f.jdbcStore();
      shortPartitions(ds, store, 5);
      Outbox outbox = Outbox.builder(store).build();
      AtomicBoolean slowFails = new AtomicBoolean(true);
      RecordingTransport t = RecordingTransport.acking()
          .failWhen(m -> "poison".equals(m.aggregateId()), PublishOutcome.rejected("poison"))
          .failWhen(m -> "slow".equals(m.aggregateId()) && slowFails.get(), PublishOutcome.retry("slow"));
      List<ExpectedEvent> committed = Collections.synchronizedList(new ArrayList<>());
      AtomicReference<Throwable> writerFailure = new AtomicReference<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong slowestWriteNanos = new AtomicLong();
      ConcurrentLinkedQueue<UUID> background = new ConcurrentLinkedQueue<>();
      try (Relay r = Relay.builder(store, t).completionMode(CompletionMode.MARK).pollInterval(Duration.ofMillis(20))
          .leaseTtl(Duration.ofSeconds(2))
          .retryPolicy(RetryPolicy.builder().maxAttempts(1000).backoff(Duration.ofSeconds(3), Duration.ofSeconds(3))
              .jitter(0).build())
          .build()) {
        r.start();
        // Partition A: published rows, a FAILED row (rejected) and a PENDING row (retrying).
        awaitFreshPartition(ds);
        String partitionA = currentPartition(ds);
        for (int i = 0; i < 20; i++) {
          committed.add(ordered(ds, outbox, "a-" + (i % 4), i / 4 + 1));
        }
        UUID poison = write(ds, outbox, OutboxEvent.builder("T", 1).aggregate("Order", "poison").payload("{}").build());
        UUID slow = write(ds, outbox, OutboxEvent.builder("T", 1).aggregate("Order", "slow").payload("{}").build());
        assertThat(currentPartition(ds)).as("still in the same partition").isEqualTo(partitionA);
        // Partition B: published rows only.
        awaitNextPartition(ds, partitionA);
        String partitionB = currentPartition(ds);
        for (int i = 0; i < 20; i++) {
          committed.add(ordered(ds, outbox, "b-" + (i % 4), i / 4 + 1));
        }
        // A writer keeps writing into the current partitions throughout.
        Thread writer = new Thread(() -> {
          try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (int n = 0; writing.get(); n++) {
              long start = System.nanoTime();
              UUID id = outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "live-" + (n % 3))
                  .payload("{}").build());
              c.commit();
              slowestWriteNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
              committed.add(ExpectedEvent.ordered(id, "Order", "live-" + (n % 3), n / 3 + 1));
              background.add(id);
              Thread.sleep(5);
            }
          } catch (Throwable e) {
            writerFailure.set(e);
          }
        });
        writer.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> Sql.rows(ds, "SELECT status FROM twinbox_outbox WHERE id = ?",
            poison).equals(List.of("FAILED")));
        await().atMost(Duration.ofSeconds(20)).until(() -> Sql.rows(ds,
            "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED' AND aggregate_id LIKE 'b-%'")
            .equals(List.of("20")));
        assertThat(Sql.rows(ds, "SELECT status, attempts > 0 FROM twinbox_outbox WHERE id = ?", slow))
            .containsExactly("PENDING|t");
        // Both partitions ended more than a second ago.
        await().atMost(Duration.ofSeconds(20)).until(() -> Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox_partitions"
            + " WHERE name IN (?, ?) AND upper_bound <= clock_timestamp() - interval '1 second'", partitionA, partitionB)
            .equals(List.of("2")));
        long rowsOfB = Long.parseLong(Sql.rows(ds, "SELECT count(*) FROM " + partitionB).get(0));
        long start = System.nanoTime();
        long removed = store.dropPublishedPartitions(Duration.ofSeconds(1));
        long dropMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(partitions(ds)).contains(partitionA).doesNotContain(partitionB);
        assertThat(removed).isEqualTo(rowsOfB);
        assertThat(Sql.rows(ds, "SELECT status FROM twinbox_outbox WHERE id IN (?, ?) ORDER BY status", poison, slow))
            .containsExactly("FAILED", "PENDING");
        assertThat(store.purgePublished(Duration.ofSeconds(1), 10)).as("purgePublished keeps partition A too").isZero();
        assertThat(partitions(ds)).contains(partitionA);

        // Skipped, the FAILED row leaves; the PENDING one still keeps partition A.
        assertThat(store.skip(EventSelector.id(poison))).isEqualTo(1);
        store.dropPublishedPartitions(Duration.ofSeconds(1));
        assertThat(partitions(ds)).contains(partitionA);
        // Published at its next retry, it no longer does.
        slowFails.set(false);
        await().atMost(Duration.ofSeconds(20)).until(() -> Sql.rows(ds, "SELECT status FROM twinbox_outbox WHERE id = ?",
            slow).equals(List.of("PUBLISHED")));
        assertThat(store.purgePublished(Duration.ofSeconds(1), 10)).isPositive();
        assertThat(partitions(ds)).doesNotContain(partitionA);

        writing.set(false);
        writer.join();
        assertThat(writerFailure.get()).as("the writer's failure").isNull();
        await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().stream().map(OutboxMessage::id)
            .collect(Collectors.toSet()).containsAll(background));
        Set<UUID> acked = t.acked().stream().map(OutboxMessage::id).collect(Collectors.toSet());
        assertThat(acked).contains(slow).doesNotContain(poison);
        List<Delivery> deliveries = new ArrayList<>();
        long offset = 0;
        for (OutboxMessage m : t.acked()) {
          if (!m.id().equals(slow)) {
            deliveries.add(new Delivery("outbox", 0, offset++, m.aggregateId(), m.id(), m.aggregateType(),
                m.aggregateId(), m.sequence()));
          }
        }
        CheckResult result = DeliveryChecker.check(committed, List.of(), deliveries);
        assertThat(result.ok()).as(result.describe(10)).isTrue();
        System.out.printf("partition drop while relaying: %d rows dropped with partition %s in %d ms (lock wait at most"
            + " %d ms); slowest concurrent write %d ms; %d events checked%n", removed, partitionB, dropMillis,
            io.twinbox.jdbc.internal.PartitionSql.LOCK_WAIT.toMillis(), slowestWriteNanos.get() / 1_000_000,
            committed.size());
      } finally {
        writing.set(false);
      }
    }
  }

  @Test
  void theBuilderRefusesWhatItCannotPartition() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).partitionedOutbox(Duration.ofSeconds(30), 3))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition interval")
          .hasMessageContaining(">= 1 minute");
      assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).partitionedOutbox(Duration.ofDays(1), 0))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitions ahead");
    }
    try (io.twinbox.testkit.MariaDbDatabase db = io.twinbox.testkit.MariaDbDatabase.create()) {
      assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).partitionedOutbox().build())
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MariaDB has no partitioned outbox")
          .hasMessageContaining("unique key");
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** Partitions of {@code seconds}, 2 ahead, cut from now on (the day's partition stays). */
  static void shortPartitions(DataSource ds, JdbcStore store, int seconds) throws Exception {
    Sql.exec(ds, "UPDATE twinbox_outbox_partitioning SET interval_seconds = " + seconds + ", ahead = 2");
    // Drop the empty daily partitions ahead of today's and today's too (no row yet): cut anew.
    for (String p : Sql.rows(ds, "SELECT name FROM twinbox_outbox_partitions WHERE lower_bound IS NOT NULL")) {
      Sql.exec(ds, "DROP TABLE " + p);
    }
    assertThat(store.maintainPartitions()).isPositive();
  }

  private static String currentPartition(DataSource ds) throws Exception {
    return Sql.rows(ds, "SELECT name FROM twinbox_outbox_partitions"
        + " WHERE lower_bound <= clock_timestamp() AND upper_bound > clock_timestamp()").get(0);
  }

  /** Waits for a partition that began less than a second ago, so that a few writes fit in it. */
  private static void awaitFreshPartition(DataSource ds) {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> !Sql.rows(ds,
        "SELECT 1 FROM twinbox_outbox_partitions WHERE lower_bound <= clock_timestamp()"
            + " AND lower_bound > clock_timestamp() - interval '1 second'").isEmpty());
  }

  private static void awaitNextPartition(DataSource ds, String previous) {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .until(() -> !currentPartition(ds).equals(previous));
  }

  private static List<String> partitions(DataSource ds) throws Exception {
    return Sql.rows(ds, "SELECT name FROM twinbox_outbox_partitions");
  }

  private static ExpectedEvent ordered(DataSource ds, Outbox outbox, String aggregate, long sequence) throws Exception {
    UUID id = write(ds, outbox, OutboxEvent.builder("T", 1).aggregate("Order", aggregate).payload("{}").build());
    return ExpectedEvent.ordered(id, "Order", aggregate, sequence);
  }

  private static UUID write(DataSource ds, Outbox outbox, OutboxEvent e) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, e);
      c.commit();
      return id;
    }
  }
}
