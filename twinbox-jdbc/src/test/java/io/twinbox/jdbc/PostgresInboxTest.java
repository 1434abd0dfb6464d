package io.twinbox.jdbc;

import static io.twinbox.jdbc.PgTestSupport.count;
import static io.twinbox.jdbc.PgTestSupport.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOutcome;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The inbox on a real PostgreSQL: at most one effect per (consumer, message id). */
class PostgresInboxTest {
  static PostgresDatabase db;
  static JdbcInboxStore store;
  static Inbox inbox;

  /** The business effect: adds the message's amount to a wallet, in the inbox's transaction. */
  static final InboxHandler DEBIT = (c, m) -> {
    try (PreparedStatement ps = c.prepareStatement("UPDATE wallet SET balance = balance - ? WHERE id = 1")) {
      ps.setInt(1, Integer.parseInt(m.payload().replaceAll("\\D", "")));
      ps.executeUpdate();
    }
  };

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcInboxStore.of(PgTestSupport.migratedStore(db));
    inbox = Inbox.builder(store, "payments").build();
    exec(db.dataSource(), "CREATE TABLE wallet (id int PRIMARY KEY, balance int NOT NULL)");
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void clean() throws Exception {
    exec(db.dataSource(), "TRUNCATE twinbox_inbox, twinbox_inbox_parked, twinbox_inbox_attempt, wallet");
    exec(db.dataSource(), "INSERT INTO wallet VALUES (1, 1000)");
  }

  static InboxMessage msg(String id, int amount) {
    return new InboxMessage(id, "OrderCreated", 1, "/orders", "Order", "o-" + id, 1, "{\"amount\":" + amount + "}",
        Map.of(), null, null, null, null, "test");
  }

  static List<InboxOutcome> inTx(List<InboxMessage> ms, InboxHandler h) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        List<InboxOutcome> r = inbox.processAll(c, ms, h);
        c.commit();
        return r;
      } catch (RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  static long balance() throws Exception {
    return count(db.dataSource(), "SELECT balance FROM wallet WHERE id = 1");
  }

  @Test
  void aRedeliveredMessageHasNoSecondEffect() throws Exception {
    assertThat(inTx(List.of(msg("m1", 10)), DEBIT)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(List.of(msg("m1", 10)), DEBIT)).containsExactly(InboxOutcome.DUPLICATE);
    assertThat(inTx(List.of(msg("m2", 5), msg("m1", 10), msg("m2", 5)), DEBIT))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
    assertThat(balance()).isEqualTo(1000 - 10 - 5);
  }

  @Test
  void aRolledBackEffectLeavesNoRecordSoTheRedeliveryIsApplied() throws Exception {
    InboxHandler failing = (c, m) -> {
      DEBIT.handle(c, m);
      throw new IllegalStateException("downstream check failed");
    };
    assertThatThrownBy(() -> inTx(List.of(msg("m1", 10), msg("m2", 20)), (c, m) -> {
      if (m.id().equals("m2")) {
        failing.handle(c, m);
      } else {
        DEBIT.handle(c, m);
      }
    })).isInstanceOf(InboxHandlerException.class)
        .satisfies(e -> assertThat(((InboxHandlerException) e).index()).isEqualTo(1))
        .hasMessageContaining("m2");
    assertThat(balance()).isEqualTo(1000);
    assertThat(count(db.dataSource(), "SELECT count(*) FROM twinbox_inbox")).isZero();
    assertThat(inTx(List.of(msg("m1", 10), msg("m2", 20)), DEBIT))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
    assertThat(balance()).isEqualTo(970);
  }

  @Test
  void theSameIdWithADifferentPayloadIsParkedNotSkipped() throws Exception {
    inTx(List.of(msg("m1", 10)), DEBIT);
    assertThat(inTx(List.of(msg("m1", 99)), DEBIT)).containsExactly(InboxOutcome.CONFLICT);
    assertThat(balance()).isEqualTo(990);
    assertThat(PgTestSupport.strings(db.dataSource(), "SELECT reason FROM twinbox_inbox_parked"))
        .singleElement().asString().contains("different payload").contains("m1");
  }

  @Test
  void concurrentDeliveriesOfOneMessageHaveOneEffect() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<InboxOutcome>> results = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      results.add(pool.submit(() -> {
        start.await();
        return inTx(List.of(msg("hot", 7)), DEBIT).get(0);
      }));
    }
    start.countDown();
    List<InboxOutcome> outcomes = new ArrayList<>();
    for (Future<InboxOutcome> f : results) {
      outcomes.add(f.get());
    }
    pool.shutdown();
    assertThat(outcomes).containsOnlyOnce(InboxOutcome.PROCESSED);
    assertThat(outcomes.stream().filter(o -> o == InboxOutcome.DUPLICATE)).hasSize(threads - 1);
    assertThat(balance()).isEqualTo(993);
  }

  @Test
  void anAutoCommitConnectionIsRefused() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      assertThatThrownBy(() -> inbox.process(c, msg("m1", 1), DEBIT))
          .isInstanceOf(NoActiveTransactionException.class).hasMessageContaining("inbox");
    }
    assertThat(balance()).isEqualTo(1000);
  }

  @Test
  void aRetentionShorterThanTheRedeliveryHorizonIsRefused() {
    assertThatThrownBy(() -> Inbox.builder(store, "x").retention(Duration.ofHours(1))
        .redeliveryHorizon(Duration.ofDays(7)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention (PT1H) is shorter than the redelivery horizon (PT168H)");
  }

  @Test
  void attemptsArePersistedAndRetentionPurgesOldRecordsInBatches() throws Exception {
    assertThat(store.recordAttempt("payments", "m9", "boom")).isEqualTo(1);
    assertThat(store.recordAttempt("payments", "m9", "boom again")).isEqualTo(2);
    for (int i = 0; i < 25; i++) {
      inTx(List.of(msg("old-" + i, 1)), DEBIT);
    }
    exec(db.dataSource(), "UPDATE twinbox_inbox SET received_at = now() - interval '100 days'");
    inTx(List.of(msg("new", 1)), DEBIT);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(5);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isZero();
    assertThat(PgTestSupport.strings(db.dataSource(), "SELECT message_id FROM twinbox_inbox")).containsExactly("new");
  }
}
