package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.InboxOutcome;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox every store must keep: at most one effect per (consumer, message id), recorded in the
 * consumer's own transaction. The runner-level tests (retries, parking after attempts) are in the
 * testkit's {@code InboxContract} and {@code InboxParkingContract}, on real databases.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxStoreContract {
  private StoreFixture fixture;
  private DataSource ds;
  private InboxStore store;
  private Inbox inbox;

  /** The business effect: takes the message's amount from a wallet, in the inbox's transaction. */
  private InboxHandler debit;

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() throws Exception {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.inboxStore();
    inbox = Inbox.builder(store, "payments").build();
    debit = (c, m) -> fixture.wallet().debit(c, amount(m));
  }

  private static int amount(InboxMessage m) {
    return Integer.parseInt(m.payload().replaceAll("\\D", ""));
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
    return fixture.wallet().balance();
  }

  @Test
  final void aRedeliveredMessageHasNoSecondEffect() throws Exception {
    assertThat(inTx(List.of(msg("m1", 10)), debit)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(List.of(msg("m1", 10)), debit)).containsExactly(InboxOutcome.DUPLICATE);
    assertThat(inTx(List.of(msg("m2", 5), msg("m1", 10), msg("m2", 5)), debit))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
    assertThat(balance()).isEqualTo(1000 - 10 - 5);
  }

  @Test
  final void aRolledBackEffectLeavesNoRecordSoTheRedeliveryIsApplied() throws Exception {
    assertThatThrownBy(() -> inTx(List.of(msg("m1", 10), msg("m2", 20)), (c, m) -> {
      debit.handle(c, m);
      if (m.id().equals("m2")) {
        throw new IllegalStateException("downstream check failed");
      }
    })).isInstanceOf(InboxHandlerException.class)
        .satisfies(e -> assertThat(((InboxHandlerException) e).index()).isEqualTo(1))
        .hasMessageContaining("m2");
    assertThat(balance()).isEqualTo(1000);
    assertThat(fixture.inboxIds()).isEmpty();
    assertThat(inTx(List.of(msg("m1", 10), msg("m2", 20)), debit))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
    assertThat(balance()).isEqualTo(970);
  }

  /** The effect of a batch handler: the debits of all the messages it is given. */
  private void debitAll(Connection c, List<InboxMessage> ms) throws Exception {
    for (InboxMessage m : ms) {
      fixture.wallet().debit(c, amount(m));
    }
  }

  @Test
  final void aBatchHandlerGetsTheNewMessagesOnlyInOrderInOneCall() throws Exception {
    inTx(List.of(msg("k1", 1)), debit);
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
  final void theSameIdWithADifferentPayloadIsParkedNotSkipped() throws Exception {
    inTx(List.of(msg("m1", 10)), debit);
    assertThat(inTx(List.of(msg("m1", 99)), debit)).containsExactly(InboxOutcome.CONFLICT);
    assertThat(balance()).isEqualTo(990);
    assertThat(fixture.parked()).extracting(StoreFixture.Parked::reason)
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
        return inTx(List.of(msg("hot", 7)), debit).get(0);
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
      assertThatThrownBy(() -> inbox.process(c, msg("m1", 1), debit))
          .isInstanceOf(NoActiveTransactionException.class).hasMessageContaining("inbox");
    }
    assertThat(balance()).isEqualTo(1000);
  }

  @Test
  final void aRetentionShorterThanTheRedeliveryHorizonIsRefused() {
    assertThatThrownBy(() -> Inbox.builder(store, "x").retention(Duration.ofHours(1))
        .redeliveryHorizon(Duration.ofDays(7)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention (1h) must not be shorter than redeliveryHorizon (7d)");
  }

  @Test
  final void attemptsArePersistedAndRetentionPurgesOldRecordsInBatches() throws Exception {
    assertThat(store.recordAttempt("payments", "m9", "boom")).isEqualTo(1);
    assertThat(store.recordAttempt("payments", "m9", "boom again")).isEqualTo(2);
    assertThat(store.recordAttempt("payments", "m10", "other")).isEqualTo(1);
    for (int i = 0; i < 25; i++) {
      inTx(List.of(msg("old-" + i, 1)), debit);
    }
    fixture.ageInboxRecords(Duration.ofDays(100));
    inTx(List.of(msg("new", 1)), debit);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(10);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isEqualTo(5);
    assertThat(store.purgeProcessed(Duration.ofDays(90), 10)).isZero();
    assertThat(fixture.inboxIds()).containsExactly("new");
  }

  @Test
  final void attemptCountersAreReadCountedAndClearedForSeveralMessagesAtOnce() throws Exception {
    store.recordAttempt("payments", "a1", "boom");
    store.recordAttempt("other", "a2", "another consumer's");
    try (Connection c = ds.getConnection()) {
      assertThat(store.storedAttempts(c, "payments", List.of("a1", "a2", "a3"))).containsExactly(Map.entry("a1", 1));
    }
    assertThat(store.recordAttempts("payments", List.of("a3", "a1", "a2"), "in a batch\u0000 after a restart"))
        .containsOnly(Map.entry("a1", 2), Map.entry("a2", 1), Map.entry("a3", 1));
    List<String> many = new java.util.ArrayList<>();
    for (int i = 0; i < 1_500; i++) { // more than one statement's worth of ids
      many.add("many-" + i);
    }
    assertThat(store.recordAttempts("payments", many, "e")).hasSize(1_500).allSatisfy((id, n) -> assertThat(n).isOne());
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      store.clearAttempts(c, "payments", List.of("a1", "a3"));
      store.clearAttempts(c, "payments", many);
      c.commit();
    }
    try (Connection c = ds.getConnection()) {
      List<String> asked = new java.util.ArrayList<>(many);
      asked.addAll(List.of("a1", "a2", "a3"));
      assertThat(store.storedAttempts(c, "payments", asked)).containsExactly(Map.entry("a2", 1));
      assertThat(store.storedAttempts(c, "other", List.of("a2"))).containsExactly(Map.entry("a2", 1));
    }
  }

  // ---- the ordering guard (R17)

  private static InboxMessage seq(String id, String aggregateId, long sequence, int amount) {
    return new InboxMessage(id, "BalanceChanged", 1, "/wallets", "Wallet", aggregateId, sequence,
        "{\"amount\":" + amount + "}", Map.of(), null, null, null, null, "test");
  }

  private List<InboxOutcome> inTx(Inbox in, List<InboxMessage> ms, InboxHandler h) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        List<InboxOutcome> r = in.processAll(c, ms, h);
        c.commit();
        return r;
      } catch (RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Records the sequence of every message the handler applies, and debits the wallet. */
  private InboxHandler recording(List<Long> applied) {
    return (c, m) -> {
      debit.handle(c, m);
      applied.add(m.sequence());
    };
  }

  @Test
  final void stateOrderingAppliesEachSequenceOnceAndSkipsOlderOnesAsStale() throws Exception {
    Inbox state = Inbox.builder(store, "state").ordering(InboxOrdering.STATE).build();
    List<Long> applied = Collections.synchronizedList(new ArrayList<>());
    InboxHandler h = recording(applied);
    for (int n = 1; n <= 3; n++) {
      assertThat(inTx(state, List.of(seq("w1-" + n, "w1", n, n)), h)).containsExactly(InboxOutcome.PROCESSED);
    }
    // The broker redelivers 3, 2, 1: the same ids are duplicates ...
    for (int n = 3; n >= 1; n--) {
      assertThat(inTx(state, List.of(seq("w1-" + n, "w1", n, n)), h)).containsExactly(InboxOutcome.DUPLICATE);
    }
    // ... and a replay under new ids (a republish, another producer) is not newer: stale, skipped.
    assertThat(inTx(state, List.of(seq("r-3", "w1", 3, 3), seq("r-2", "w1", 2, 2), seq("r-1", "w1", 1, 1)), h))
        .containsExactly(InboxOutcome.STALE, InboxOutcome.STALE, InboxOutcome.STALE);
    assertThat(applied).containsExactly(1L, 2L, 3L);
    assertThat(balance()).isEqualTo(1000 - 6);
    // A newer state supersedes what is missing: 5 after 3 is applied, 4 arriving later is stale.
    assertThat(inTx(state, List.of(seq("w1-5", "w1", 5, 5)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(state, List.of(seq("w1-4", "w1", 4, 4)), h)).containsExactly(InboxOutcome.STALE);
    assertThat(applied).containsExactly(1L, 2L, 3L, 5L);
    // Other aggregates, unordered messages and other consumers are not held back by w1's sequences.
    assertThat(inTx(state, List.of(seq("w2-1", "w2", 1, 1), msg("plain", 1)), h))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
  }

  @Test
  final void deltaOrderingHoldsAMessageAfterAGapUntilTheMissingOneArrivesThenAppliesBothInOrder() throws Exception {
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    Inbox delta = Inbox.builder(store, "delta").ordering(InboxOrdering.DELTA).listener(new io.twinbox.InboxListener() {
      @Override
      public void processed(InboxMessage m) {
        heard.add("processed " + m.sequence());
      }

      @Override
      public void held(InboxMessage m) {
        heard.add("held " + m.sequence());
      }
    }).build();
    List<Long> applied = Collections.synchronizedList(new ArrayList<>());
    InboxHandler h = recording(applied);
    assertThat(inTx(delta, List.of(seq("d-1", "acc", 1, 1)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(delta, List.of(seq("d-3", "acc", 3, 30)), h)).containsExactly(InboxOutcome.HELD);
    assertThat(applied).as("3 waits for 2").containsExactly(1L);
    assertThat(balance()).isEqualTo(999);
    assertThat(inTx(delta, List.of(seq("d-3", "acc", 3, 30)), h)).as("a redelivery of the held one")
        .containsExactly(InboxOutcome.DUPLICATE);
    assertThat(inTx(delta, List.of(seq("d-2", "acc", 2, 2)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(applied).containsExactly(1L, 2L, 3L);
    assertThat(balance()).isEqualTo(1000 - 33);
    assertThat(heard).containsExactly("processed 1", "held 3", "processed 2", "processed 3");
    // Out of order inside one batch: 5 is held, 4 applied, then 5.
    assertThat(inTx(delta, List.of(seq("d-5", "acc", 5, 5), seq("d-4", "acc", 4, 4)), h))
        .containsExactly(InboxOutcome.HELD, InboxOutcome.PROCESSED);
    assertThat(applied).containsExactly(1L, 2L, 3L, 4L, 5L);
    // A replay under new ids is stale, as with STATE.
    assertThat(inTx(delta, List.of(seq("again-2", "acc", 2, 2)), h)).containsExactly(InboxOutcome.STALE);
    assertThat(applied).hasSize(5);
  }

  @Test
  final void aBatchHandlerGetsHeldMessagesInSequenceOrderOnceTheGapIsFilled() throws Exception {
    Inbox delta = Inbox.builder(store, "delta-batch").ordering(InboxOrdering.DELTA).build();
    List<List<Long>> calls = new ArrayList<>();
    InboxBatchHandler batch = (c, ms) -> {
      calls.add(ms.stream().map(InboxMessage::sequence).toList());
      debitAll(c, ms);
    };
    assertThat(inTx(delta, List.of(seq("b-3", "acc", 3, 3), seq("b-4", "acc", 4, 4)), batch))
        .containsExactly(InboxOutcome.HELD, InboxOutcome.HELD);
    assertThat(calls).isEmpty();
    assertThat(inTx(delta, List.of(seq("b-1", "acc", 1, 1), seq("b-2", "acc", 2, 2)), batch))
        .containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
    assertThat(calls).containsExactly(List.of(1L, 2L, 3L, 4L));
    assertThat(balance()).isEqualTo(1000 - 10);
  }

  @Test
  final void aMessageHeldLongerThanTheGapTimeoutIsParkedAndNeverAppliedOutOfOrder() throws Exception {
    Inbox delta = Inbox.builder(store, "delta-timeout").ordering(InboxOrdering.DELTA)
        .gapTimeout(Duration.ofMillis(200)).build();
    List<Long> applied = Collections.synchronizedList(new ArrayList<>());
    InboxHandler h = recording(applied);
    assertThat(inTx(delta, List.of(seq("t-1", "acc", 1, 1)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(inTx(delta, List.of(seq("t-3", "acc", 3, 3)), h)).containsExactly(InboxOutcome.HELD);
    Thread.sleep(400);
    assertThat(inTx(delta, List.of(seq("other-1", "other", 1, 1)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(fixture.parked()).singleElement().satisfies(p -> {
      assertThat(p.messageId()).isEqualTo("t-3");
      assertThat(p.reason()).contains("ordering guard").contains("gapTimeout").contains("sequence 2");
    });
    assertThat(inTx(delta, List.of(seq("t-2", "acc", 2, 2)), h)).containsExactly(InboxOutcome.PROCESSED);
    assertThat(applied).as("3 was parked, not applied after 2").containsExactly(1L, 1L, 2L);
  }

  @Test
  final void anOrderingGuardNeedsAStoreThatKeepsItsTable() {
    assertThat(store.supportsOrdering()).as(fixture.name() + " keeps the guard's table").isTrue();
    assertThatThrownBy(() -> Inbox.builder(new InboxStore() {
      @Override
      public List<String> record(Connection c, String consumer, Map<String, String> hashes) {
        return List.of();
      }

      @Override
      public Map<String, String> storedHashes(Connection c, String consumer, List<String> ids) {
        return Map.of();
      }

      @Override
      public void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason,
          int attempts) {}

      @Override
      public int recordAttempt(String consumer, String messageId, String error) {
        return 1;
      }

      @Override
      public void clearAttempts(Connection c, String consumer, String messageId) {}

      @Override
      public int purgeProcessed(Duration age, int limit) {
        return 0;
      }
    }, "x").ordering(InboxOrdering.DELTA).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ordering DELTA needs a store with the ordering guard's tables");
  }
}
