package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.InboxRetentionTooShortException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import io.twinbox.RetentionSettings;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 18's retention on a real database (acceptance 2 and 3): with a 1-second age, PUBLISHED
 * rows and inbox records leave in batches while writers and a relay run, FAILED rows and parked
 * messages stay; the database lock keeps rounds to one runner (a round finding it held is skipped,
 * two racing runners never overlap); an inbox age below the redelivery horizon is refused. One
 * subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RetentionRoundsTests {
  private static final Duration SECOND = Duration.ofSeconds(1);
  JdbcFixture fixture;

  abstract JdbcFixture createFixture();

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
  }

  @AfterAll
  final void closeFixture() {
    fixture.close();
  }

  @BeforeEach
  final void clean() throws Exception {
    fixture.reset();
  }

  /** Counts every batch and round, and whether two rounds ever held the lock at once. */
  static final class Recorder implements RetentionListener {
    final List<Integer> batches = new CopyOnWriteArrayList<>();
    final Map<Kind, AtomicLong> rows = Collections.synchronizedMap(new java.util.EnumMap<>(Kind.class));
    final AtomicInteger completed = new AtomicInteger();
    final AtomicInteger skipped = new AtomicInteger();

    @Override
    public void deleted(Kind kind, int n) {
      batches.add(n);
      rows.computeIfAbsent(kind, k -> new AtomicLong()).addAndGet(n);
    }

    @Override
    public void roundCompleted(Retention.Result result, Duration took) {
      completed.incrementAndGet();
    }

    @Override
    public void roundSkipped() {
      skipped.incrementAndGet();
    }

    long rows(Kind kind) {
      AtomicLong n = rows.get(kind);
      return n == null ? 0 : n.get();
    }
  }

  long count(String sql) throws Exception {
    return Sql.count(fixture.dataSource(), sql);
  }

  void write(Outbox outbox, String aggregateId, int n) throws Exception {
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId).payload("{}").build());
      }
      c.commit();
    }
  }

  static InboxMessage message(String id) {
    return new InboxMessage(id, "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null);
  }

  @Test
  final void publishedRowsAndInboxRecordsLeaveInBatchesWhileWritersAndARelayRunFailedAndParkedStay() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    RecordingTransport transport = RecordingTransport.acking()
        .failWhen(m -> "poison".equals(m.aggregateId()), PublishOutcome.rejected("refused for the test"));
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "billing").retention(SECOND).redeliveryHorizon(SECOND).build();
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      fixture.inboxStore().park(c, "billing", message("parked-1"), "0".repeat(64), "handler kept failing", 5);
      c.commit();
    }
    Recorder recorder = new Recorder();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger written = new AtomicInteger();
    AtomicInteger received = new AtomicInteger();
    List<Throwable> writerErrors = new CopyOnWriteArrayList<>();
    try (Relay relay = Relay.builder(fixture.store(), transport).completionMode(CompletionMode.MARK)
        .leaseTtl(Duration.ofSeconds(2)).build();
        Retention retention = Retention.builder().outbox(fixture.adminStore(), SECOND)
            .inbox(fixture.inboxStore(), SECOND).redeliveryHorizon(SECOND).suppliedIdRetention(SECOND)
            .batchSize(40).pause(Duration.ofMillis(5)).period(Duration.ofMillis(300)).listener(recorder).build()) {
      relay.start();
      write(outbox, "poison", 1);
      await().atMost(Duration.ofSeconds(20))
          .until(() -> count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      Thread writer = new Thread(() -> {
        try {
          for (int i = 0; writing.get(); i++) {
            write(outbox, "o-" + (i % 17), 25);
            written.addAndGet(25);
          }
        } catch (Throwable e) {
          writerErrors.add(e);
        }
      });
      Thread consumer = new Thread(() -> {
        try (Connection c = fixture.dataSource().getConnection()) {
          c.setAutoCommit(false);
          for (int i = 0; writing.get(); i++) {
            for (int j = 0; j < 25; j++) {
              inbox.process(c, message("m-" + i + "-" + j), (conn, m) -> { });
            }
            c.commit();
            received.addAndGet(25);
          }
        } catch (Throwable e) {
          writerErrors.add(e);
        }
      });
      writer.start();
      consumer.start();
      retention.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> recorder.rows(RetentionListener.Kind.PUBLISHED_EVENTS) > 400
          && recorder.rows(RetentionListener.Kind.INBOX_RECORDS) > 400 && recorder.completed.get() >= 3);
      writing.set(false);
      writer.join();
      consumer.join();
      assertThat(writerErrors).isEmpty();
      // Everything written was published although retention deleted behind the relay all along.
      await().atMost(Duration.ofSeconds(30)).until(() -> transport.acked().size() == written.get());
      // With the writers stopped, a few rounds later nothing older than the age is left.
      await().atMost(Duration.ofSeconds(30)).until(() -> count(
          "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") == 0 && count(
          "SELECT count(*) FROM twinbox_inbox WHERE message_id LIKE 'm-%'") == 0);
    }
    assertThat(recorder.batches).as("in batches of at most 40").allSatisfy(n -> assertThat(n).isBetween(1, 40));
    assertThat(recorder.batches.size()).as("many batches").isGreaterThan(20);
    assertThat(recorder.rows(RetentionListener.Kind.PUBLISHED_EVENTS)).isEqualTo(written.get());
    assertThat(recorder.rows(RetentionListener.Kind.INBOX_RECORDS)).isGreaterThanOrEqualTo(received.get());
    assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED' AND aggregate_id = 'poison'"))
        .as("the FAILED row stays").isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_inbox_parked WHERE message_id = 'parked-1'"))
        .as("the parked message stays").isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
  }

  @Test
  final void aRoundFindingTheLockHeldIsSkippedAndDeletesNothing() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    write(outbox, "o-1", 30);
    Sql.exec(fixture.dataSource(), "UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = created_at");
    Thread.sleep(1_100);
    Recorder recorder = new Recorder();
    Retention retention = Retention.builder().outbox(fixture.adminStore(), SECOND).batchSize(10).listener(recorder)
        .build();
    // Another runner (here: the test, on a store of its own) holds the lock.
    JdbcStore other = JdbcStore.builder(fixture.dataSource()).build();
    try (ExclusiveLock.Held held = other.tryLock(Retention.LOCK_NAME).orElseThrow()) {
      assertThat(other.tryLock(Retention.LOCK_NAME)).as("not taken twice").isEmpty();
      assertThat(retention.runOnce()).isEqualTo(Retention.Result.SKIPPED);
      assertThat(recorder.skipped.get()).isEqualTo(1);
      assertThat(count("SELECT count(*) FROM twinbox_outbox")).as("nothing deleted").isEqualTo(30);
    }
    Retention.Result result = retention.runOnce();
    assertThat(result).isEqualTo(new Retention.Result(30, 0, 0));
    assertThat(recorder.batches).containsExactly(10, 10, 10);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
    // The round released the lock: anyone may take it again.
    try (ExclusiveLock.Held again = other.tryLock(Retention.LOCK_NAME).orElseThrow()) {
      assertThat(again).isNotNull();
    }
  }

  @Test
  final void twoRunnersRacingNeverHoldTheLockAtOnce() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    AtomicInteger holding = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    List<Recorder> recorders = new ArrayList<>();
    List<Retention> runners = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      JdbcStore own = JdbcStore.builder(fixture.dataSource()).build(); // each instance its own store
      ExclusiveLock watched = name -> own.tryLock(name).map(held -> {
        if (holding.incrementAndGet() > 1) {
          overlaps.incrementAndGet();
        }
        return () -> {
          holding.decrementAndGet();
          held.close();
        };
      });
      Recorder r = new Recorder();
      recorders.add(r);
      runners.add(Retention.builder().outbox(own, SECOND).batchSize(20).pause(Duration.ofMillis(10))
          .period(Duration.ofMillis(50)).lock(watched).listener(r).build());
    }
    for (int round = 0; round < 6; round++) {
      write(outbox, "o-" + round, 200);
    }
    Sql.exec(fixture.dataSource(), "UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = created_at");
    Thread.sleep(1_100);
    runners.forEach(Retention::start);
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM twinbox_outbox") == 0);
      Thread.sleep(200); // a round that found nothing left ends
    } finally {
      runners.forEach(Retention::close);
    }
    assertThat(overlaps.get()).as("rounds holding the lock at once").isZero();
    long deleted = recorders.stream().mapToLong(r -> r.rows(RetentionListener.Kind.PUBLISHED_EVENTS)).sum();
    assertThat(deleted).as("every row deleted exactly once").isEqualTo(1_200);
    assertThat(recorders.stream().mapToInt(r -> r.skipped.get()).sum()).as("they raced: rounds were skipped")
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  final void anInboxAgeBelowTheRedeliveryHorizonIsRefusedNamingTheSettingAndTheMinimum() {
    assertThatThrownBy(() -> Retention.builder().inbox(fixture.inboxStore(), SECOND).build())
        .isInstanceOf(InboxRetentionTooShortException.class)
        .hasMessage("inboxAge (1s) must be at least redeliveryHorizon (8d), the longest time the broker may"
            + " redeliver a message: a message redelivered after its inbox record was purged would be processed"
            + " twice")
        .satisfies(e -> assertThat(((InboxRetentionTooShortException) e).minimum()).isEqualTo(Duration.ofDays(8)));
    assertThatThrownBy(() -> RetentionSettings.CATALOGUE.values(Map.of("inboxAge", Duration.ofDays(3),
        "redeliveryHorizon", Duration.ofDays(7)), n -> "retention." + n))
        .hasMessageContaining("retention.inboxAge (3d) must be at least retention.redeliveryHorizon (7d)");
    assertThat(Retention.builder().inbox(fixture.inboxStore(), SECOND).redeliveryHorizon(SECOND).build()).isNotNull();
  }

  /** The lock is the database's: a round of a store on another connection pool is skipped as well. */
  @Test
  final void theLockIsHeldOnTheDatabaseNotInTheProcess() throws Exception {
    Optional<ExclusiveLock.Held> held = fixture.jdbcStore().tryLock(Retention.LOCK_NAME);
    assertThat(held).isPresent();
    try {
      JdbcInboxStore inboxOnly = JdbcInboxStore.of(fixture.jdbcStore());
      Retention retention = Retention.builder().inbox(inboxOnly, SECOND).redeliveryHorizon(SECOND).build();
      assertThat(retention.runOnce().skipped()).isTrue();
    } finally {
      held.get().close();
    }
    assertThat(fixture.jdbcStore().tryLock("another-name").map(h -> {
      h.close();
      return true;
    })).contains(true);
  }
}
