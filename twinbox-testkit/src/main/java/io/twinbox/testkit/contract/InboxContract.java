package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static io.twinbox.testkit.contract.Sql.exec;
import static io.twinbox.testkit.contract.Sql.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOutcome;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.InboxRunner;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Collections;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The inbox every store must keep: at most one effect per (consumer, message id). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxContract {
  private StoreFixture fixture;
  private DataSource ds;
  private InboxStore store;
  private Inbox inbox;

  /** The business effect: takes the message's amount from a wallet, in the inbox's transaction. */
  private static final InboxHandler DEBIT = (c, m) -> {
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_test_wallet SET balance = balance - ? WHERE id = 1")) {
      ps.setInt(1, Integer.parseInt(m.payload().replaceAll("\\D", "")));
      ps.executeUpdate();
    }
  };

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() throws Exception {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.inboxStore();
    inbox = Inbox.builder(store, "payments").build();
    exec(ds, "CREATE TABLE twinbox_test_wallet (id int PRIMARY KEY, balance int NOT NULL)");
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
    exec(ds, "DELETE FROM twinbox_test_wallet");
    exec(ds, "INSERT INTO twinbox_test_wallet VALUES (1, 1000)");
  }

  private static InboxMessage msg(String id, int amount) {
    return new InboxMessage(id, "OrderCreated", 1, "/orders", "Order", "o-" + id, 1, "{\"amount\":" + amount + "}",
        Map.of(), null, null, null, null, "test");
  }

  private List<InboxOutcome> inTx(List<InboxMessage> ms, InboxHandler h) throws Exception {
    try (Connection c = ds.getConnection()) {
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

  private long balance() throws Exception {
    return count(ds, "SELECT balance FROM twinbox_test_wallet WHERE id = 1");
  }

  @Test
  final void aRedeliveredMessageHasNoSecondEffect() throws Exception {
    assertThat(inTx(List.of(msg("m1", 10)), DEBIT)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(List.of(msg("m1", 10)), DEBIT)).containsExactly(InboxOutcome.DUPLICATE);
    assertThat(inTx(List.of(msg("m2", 5), msg("m1", 10), msg("m2", 5)), DEBIT))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
    assertThat(balance()).isEqualTo(1000 - 10 - 5);
  }

  @Test
  final void aRolledBackEffectLeavesNoRecordSoTheRedeliveryIsApplied() throws Exception {
    assertThatThrownBy(() -> inTx(List.of(msg("m1", 10), msg("m2", 20)), (c, m) -> {
      DEBIT.handle(c, m);
      if (m.id().equals("m2")) {
        throw new IllegalStateException("downstream check failed");
      }
    })).isInstanceOf(InboxHandlerException.class)
        .satisfies(e -> assertThat(((InboxHandlerException) e).index()).isEqualTo(1))
        .hasMessageContaining("m2");
    assertThat(balance()).isEqualTo(1000);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox")).isZero();
    assertThat(inTx(List.of(msg("m1", 10), msg("m2", 20)), DEBIT))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
    assertThat(balance()).isEqualTo(970);
  }

  /**
   * The consumer runner (behind every broker's consumer) reports each message's outcome to the
   * inbox listener exactly once and only after its commit: a batch rolled back by a failing message
   * and retried does not count its leading messages twice, and a parked message is reported.
   */
  @Test
  final void theConsumerRunnerReportsEachOutcomeOnceAfterItsCommit() throws Exception {
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    Inbox counted = Inbox.builder(store, "runner").listener(new InboxListener() {
      @Override
      public void processed(InboxMessage m) {
        heard.add("processed " + m.id());
      }

      @Override
      public void duplicate(InboxMessage m) {
        heard.add("duplicate " + m.id());
      }

      @Override
      public void parked(InboxMessage m, String reason) {
        heard.add("parked " + m.id() + ": " + reason);
      }
    }).build();
    AtomicInteger r3Calls = new AtomicInteger();
    InboxHandler flaky = (c, m) -> {
      DEBIT.handle(c, m);
      if (m.id().equals("r3") && r3Calls.getAndIncrement() == 0) {
        throw new IllegalStateException("fails once");
      }
      if (m.id().equals("r5")) {
        throw new IllegalStateException("fails always");
      }
    };
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(2).backoff(Duration.ZERO, Duration.ofMillis(5)).build();
    InboxRunner runner = new InboxRunner(counted, ds, flaky, 50, retry, () -> true);
    List<InboxRunner.Item> items = new ArrayList<>();
    for (String id : List.of("r1", "r2", "r3", "r4", "r5", "r6", "r1")) {
      items.add(new InboxRunner.Item(msg(id, 1), null));
    }

    assertThat(runner.process(items, false)).isEqualTo(7);

    assertThat(heard).filteredOn(h -> h.startsWith("processed"))
        .containsExactlyInAnyOrder("processed r1", "processed r2", "processed r3", "processed r4", "processed r6");
    assertThat(heard).filteredOn(h -> h.startsWith("duplicate")).containsExactly("duplicate r1");
    assertThat(heard).filteredOn(h -> h.startsWith("parked")).singleElement().asString()
        .startsWith("parked r5: ").contains("handler failed 2 times");
    assertThat(runner.processed.get()).isEqualTo(5);
    assertThat(balance()).isEqualTo(1000 - 5);
  }

  /** The effect of a batch handler: one JDBC batch of debits for all the messages it is given. */
  private static void debitAll(Connection c, List<InboxMessage> ms) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_test_wallet SET balance = balance - ? WHERE id = 1")) {
      for (InboxMessage m : ms) {
        ps.setInt(1, Integer.parseInt(m.payload().replaceAll("\\D", "")));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  @Test
  final void aBatchHandlerGetsTheNewMessagesOnlyInOrderInOneCall() throws Exception {
    inTx(List.of(msg("k1", 1)), DEBIT);
    List<List<String>> calls = new ArrayList<>();
    InboxBatchHandler batch = (c, ms) -> {
      calls.add(ms.stream().map(InboxMessage::id).toList());
      debitAll(c, ms);
    };
    assertThat(inTx(List.of(msg("b1", 10), msg("k1", 1), msg("b2", 20), msg("b1", 10), msg("b3", 30)), batch))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.PROCESSED,
            InboxOutcome.DUPLICATE, InboxOutcome.PROCESSED);
    assertThat(calls).containsExactly(List.of("b1", "b2", "b3"));
    assertThat(balance()).isEqualTo(1000 - 1 - 60);
    assertThat(inTx(List.of(msg("b2", 20), msg("k1", 1)), batch))
        .containsExactly(InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
    assertThat(calls).hasSize(1);
  }

  @Test
  final void aFailingBatchHandlerIsNarrowedDownToTheFailingMessage() throws Exception {
    InboxBatchHandler poisoned = (c, ms) -> {
      if (ms.stream().anyMatch(m -> m.id().equals("p3"))) {
        throw new IllegalStateException("p3 cannot be applied");
      }
      debitAll(c, ms);
    };
    assertThatThrownBy(() -> inTx(List.of(msg("p1", 1), msg("p3", 1)), poisoned))
        .isInstanceOfSatisfying(InboxHandlerException.class, e -> assertThat(e.index()).isEqualTo(-1));
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox")).isZero();

    List<String> processed = Collections.synchronizedList(new ArrayList<>());
    Inbox counted = Inbox.builder(store, "batch-runner").listener(new InboxListener() {
      @Override
      public void processed(InboxMessage m) {
        processed.add(m.id());
      }
    }).build();
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(2).backoff(Duration.ZERO, Duration.ofMillis(5)).build();
    InboxRunner runner = new InboxRunner(counted, ds, poisoned, 50, retry, () -> true);
    List<InboxRunner.Item> items = new ArrayList<>();
    for (String id : List.of("p1", "p2", "p3", "p4", "p5", "p6")) {
      items.add(new InboxRunner.Item(msg(id, 1), null));
    }

    assertThat(runner.process(items, false)).isEqualTo(6);

    assertThat(processed).containsExactlyInAnyOrder("p1", "p2", "p4", "p5", "p6");
    assertThat(balance()).isEqualTo(1000 - 5);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE message_id = 'p3'"))
        .singleElement().asString().contains("handler failed 2 times").contains("p3 cannot be applied");
  }

  @Test
  final void theSameIdWithADifferentPayloadIsParkedNotSkipped() throws Exception {
    inTx(List.of(msg("m1", 10)), DEBIT);
    assertThat(inTx(List.of(msg("m1", 99)), DEBIT)).containsExactly(InboxOutcome.CONFLICT);
    assertThat(balance()).isEqualTo(990);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked"))
        .singleElement().asString().contains("different payload").contains("m1");
  }

  @Test
  final void concurrentDeliveriesOfOneMessageHaveOneEffect() throws Exception {
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
  final void anAutoCommitConnectionIsRefused() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      assertThatThrownBy(() -> inbox.process(c, msg("m1", 1), DEBIT))
          .isInstanceOf(NoActiveTransactionException.class).hasMessageContaining("inbox");
    }
    assertThat(balance()).isEqualTo(1000);
  }

  @Test
  final void aRetentionShorterThanTheRedeliveryHorizonIsRefused() {
    assertThatThrownBy(() -> Inbox.builder(store, "x").retention(Duration.ofHours(1))
        .redeliveryHorizon(Duration.ofDays(7)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention (PT1H) is shorter than the redelivery horizon (PT168H)");
  }

  @Test
  final void attemptsArePersistedAndRetentionPurgesOldRecordsInBatches() throws Exception {
    assertThat(store.recordAttempt("payments", "m9", "boom")).isEqualTo(1);
    assertThat(store.recordAttempt("payments", "m9", "boom again")).isEqualTo(2);
    assertThat(store.recordAttempt("payments", "m10", "other")).isEqualTo(1);
    for (int i = 0; i < 25; i++) {
      inTx(List.of(msg("old-" + i, 1)), DEBIT);
    }
    exec(ds, "UPDATE twinbox_inbox SET received_at = ?", Timestamp.from(Instant.now().minus(Duration.ofDays(100))));
    inTx(List.of(msg("new", 1)), DEBIT);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(5);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isZero();
    assertThat(rows(ds, "SELECT message_id FROM twinbox_inbox")).containsExactly("new");
  }
}
