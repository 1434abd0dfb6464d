package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedMessageException.Problem;
import io.twinbox.ParkedState;
import io.twinbox.ParkedSummary;
import io.twinbox.TwinboxAdmin;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.ReplayStart;
import io.twinbox.spi.StoreRules;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Parked messages as operator objects, on every store: listings and filters, one message with its
 * payload only when asked, replay requests and discards with their audit trail, the typed errors
 * that change nothing, and the store's side of a replay (applied at most once: the row is locked,
 * a replay ends it {@code REPLAYED}, a second one finds it gone). Through {@link TwinboxAdmin}, as
 * the CLI and the admin page use it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxAdminContract {
  private StoreFixture fixture;
  private DataSource ds;
  private InboxStore store;
  private TwinboxAdmin admin;

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.inboxStore();
    admin = TwinboxAdmin.of(fixture.adminStore());
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

  private static InboxMessage msg(String id, String aggregateId) {
    return new InboxMessage(id, "OrderCreated", 2, "/orders", "Order", aggregateId, 7, "{\"amount\":" + id.length() + "}",
        Map.of("tenant", "t1"), "corr", "cause", null, null, "orders-0@" + id);
  }

  /** Parks {@code m} for {@code consumer} as a consumer does: recorded in the inbox, parked, committed. */
  private void park(String consumer, InboxMessage m, String reason) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      String hash = StoreRules.payloadHash(m);
      store.record(c, consumer, Map.of(m.id(), hash));
      store.park(c, consumer, m, hash, reason, 3);
      c.commit();
    }
  }

  private ParkedMessage only(String messageId) {
    return admin.parked(ParkedFilter.any()).stream().filter(p -> p.messageId().equals(messageId)).findFirst()
        .orElseThrow();
  }

  @Test
  final void listsOldestFirstWithoutPayloadsAndFiltersByConsumerReasonAggregateAndAge() throws Exception {
    park("payments", msg("m1", "o-1"), "handler failed: IllegalStateException: Boom");
    park("payments", msg("m2", "o-2"), "undecodable item");
    park("shipping", msg("m3", "o-1"), "handler failed: timeout");

    List<ParkedMessage> all = admin.parked(ParkedFilter.open());
    assertThat(all).extracting(ParkedMessage::messageId).containsExactly("m1", "m2", "m3");
    ParkedMessage m1 = all.get(0);
    assertThat(m1.payload()).isNull();
    assertThat(m1.payloadStored()).isTrue();
    assertThat(m1.consumer()).isEqualTo("payments");
    assertThat(m1.type()).isEqualTo("OrderCreated");
    assertThat(m1.version()).isEqualTo(2);
    assertThat(m1.aggregateType()).isEqualTo("Order");
    assertThat(m1.aggregateId()).isEqualTo("o-1");
    assertThat(m1.sequence()).isEqualTo(7);
    assertThat(m1.attempts()).isEqualTo(3);
    assertThat(m1.headers()).containsExactly(Map.entry("tenant", "t1"));
    assertThat(m1.origin()).isEqualTo("orders-0@m1");
    assertThat(m1.state()).isEqualTo(ParkedState.PARKED);
    assertThat(m1.parkedAt()).isNotNull();

    assertThat(admin.parked(ParkedFilter.open().consumer("payments"))).extracting(ParkedMessage::messageId)
        .containsExactly("m1", "m2");
    assertThat(admin.parked(ParkedFilter.open().reasonContains("BOOM"))).extracting(ParkedMessage::messageId)
        .containsExactly("m1");
    assertThat(admin.parked(ParkedFilter.open().aggregate("Order", "o-1"))).extracting(ParkedMessage::messageId)
        .containsExactly("m1", "m3");
    assertThat(admin.parked(ParkedFilter.open().olderThan(Duration.ofHours(1)))).isEmpty();
    assertThat(admin.parked(ParkedFilter.open().limit(2))).hasSize(2);
    assertThat(admin.parked(ParkedFilter.open().states(ParkedState.DISCARDED))).isEmpty();
  }

  @Test
  final void showsOneMessageWithItsPayloadOnlyWhenAsked() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    assertThat(admin.parkedMessage(id, false).payload()).isNull();
    assertThat(admin.parkedMessage(id, true).payload()).isEqualTo("{\"amount\":2}");
    assertThatThrownBy(() -> admin.parkedMessage(id + 1000, true)).isInstanceOf(ParkedMessageException.class)
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.NOT_FOUND))
        .hasMessageContaining(String.valueOf(id + 1000));
  }

  @Test
  final void aReplayRequestMovesTheRowToReplayingOnceWithAnAuditRecord() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    ParkedMessage r = admin.replayParked(id, "alice");
    assertThat(r.state()).isEqualTo(ParkedState.REPLAYING);
    assertThat(r.stateBy()).isEqualTo("alice");
    assertThat(r.stateAt()).isNotNull();
    assertThat(admin.replayParked(id, "bob").stateBy()).isEqualTo("alice"); // asked already: unchanged
    assertThat(admin.parkedAudit(id)).extracting(ParkedAudit::action, ParkedAudit::actor)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ParkedAudit.REPLAY_REQUESTED, "alice"));
    assertThat(store.replayRequests("payments", 10)).singleElement()
        .satisfies(p -> {
          assertThat(p.id()).isEqualTo(id);
          assertThat(p.payload()).isEqualTo("{\"amount\":2}");
        });
    assertThat(store.replayRequests("shipping", 10)).isEmpty();
  }

  @Test
  final void aFinishedReplayIsReplayedAndASecondReplayOrADiscardIsATypedErrorThatChangesNothing() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    admin.replayParked(id, "alice");
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.startReplay(c, "payments", id)).isEqualTo(ReplayStart.APPLY);
      store.finishReplay(c, "payments", id, true);
      c.commit();
    }
    ParkedMessage done = admin.parkedMessage(id, false);
    assertThat(done.state()).isEqualTo(ParkedState.REPLAYED);
    assertThat(done.stateBy()).isEqualTo("consumer:payments");
    List<ParkedAudit> trail = admin.parkedAudit(id);
    assertThat(trail).extracting(ParkedAudit::action)
        .containsExactly(ParkedAudit.REPLAY_REQUESTED, ParkedAudit.REPLAYED);

    assertThatThrownBy(() -> admin.replayParked(id, "alice")).isInstanceOf(ParkedMessageException.class)
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.ALREADY_REPLAYED));
    assertThatThrownBy(() -> admin.discardParked(id, "alice")).isInstanceOf(ParkedMessageException.class)
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.ALREADY_REPLAYED));
    assertThat(admin.parkedMessage(id, false)).isEqualTo(done);
    assertThat(admin.parkedAudit(id)).isEqualTo(trail);
    assertThat(store.replayRequests("payments", 10)).isEmpty();
  }

  @Test
  final void twoReplaysOfOneRowApplyOnceTheSecondWaitsAndFindsItGone() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    admin.replayParked(id, "alice");
    try (Connection first = ds.getConnection()) {
      first.setAutoCommit(false);
      assertThat(store.startReplay(first, "payments", id)).isEqualTo(ReplayStart.APPLY);
      CompletableFuture<ReplayStart> second = CompletableFuture.supplyAsync(() -> {
        try (Connection c = ds.getConnection()) {
          c.setAutoCommit(false);
          ReplayStart s = store.startReplay(c, "payments", id);
          c.rollback();
          return s;
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      Thread.sleep(300);
      assertThat(second).isNotDone(); // waits for the row
      store.finishReplay(first, "payments", id, true);
      first.commit();
      assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(ReplayStart.GONE);
    }
  }

  @Test
  final void aRolledBackReplayLeavesTheRowReplayingAndAFailedOneGoesBackToParkedWithTheNewReason() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    admin.replayParked(id, "alice");
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.startReplay(c, "payments", id)).isEqualTo(ReplayStart.APPLY);
      c.rollback();
    }
    assertThat(admin.parkedMessage(id, false).state()).isEqualTo(ParkedState.REPLAYING);
    assertThat(store.replayFailed("payments", id, "still failing: IllegalStateException: no\u0000way")).isTrue();
    ParkedMessage back = admin.parkedMessage(id, false);
    assertThat(back.state()).isEqualTo(ParkedState.PARKED);
    assertThat(back.reason()).startsWith("still failing: IllegalStateException: no").doesNotContain("\u0000");
    assertThat(back.attempts()).isEqualTo(4);
    assertThat(admin.parkedAudit(id)).extracting(ParkedAudit::action)
        .containsExactly(ParkedAudit.REPLAY_REQUESTED, ParkedAudit.REPLAY_FAILED);
    assertThat(admin.parkedAudit(id).get(1).detail()).isEqualTo(back.reason());
    assertThat(store.replayFailed("payments", id, "again")).isFalse(); // no longer replaying
    // and it can be asked for again
    assertThat(admin.replayParked(id, "alice").state()).isEqualTo(ParkedState.REPLAYING);
  }

  @Test
  final void anIdAppliedWithAnotherPayloadIsNotAppliedAgain() throws Exception {
    Inbox inbox = Inbox.builder(store, "payments").build();
    InboxMessage applied = msg("m1", "o-1");
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      inbox.process(c, applied, (conn, m) -> { });
      c.commit();
    }
    InboxMessage other = new InboxMessage("m1", "OrderCreated", 2, "/orders", "Order", "o-1", 7, "{\"amount\":99}",
        Map.of(), null, null, null, null, null);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      store.park(c, "payments", other, StoreRules.payloadHash(other), "same id, other payload", 0);
      c.commit();
    }
    long id = only("m1").id();
    admin.replayParked(id, "alice");
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.startReplay(c, "payments", id)).isEqualTo(ReplayStart.APPLIED_BEFORE);
      store.finishReplay(c, "payments", id, false);
      c.commit();
    }
    assertThat(admin.parkedMessage(id, false).state()).isEqualTo(ParkedState.REPLAYED);
    assertThat(admin.parkedAudit(id)).extracting(ParkedAudit::action).last().isEqualTo(ParkedAudit.REPLAYED_NOOP);
  }

  @Test
  final void aMessageWhoseRecordWasPurgedIsRecordedAgainByItsReplay() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    fixture.ageInboxRecords(Duration.ofDays(30));
    store.purgeProcessed(Duration.ofDays(1), 100);
    assertThat(fixture.inboxIds()).isEmpty();
    admin.replayParked(id, "alice");
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.startReplay(c, "payments", id)).isEqualTo(ReplayStart.APPLY);
      store.finishReplay(c, "payments", id, true);
      c.commit();
    }
    assertThat(fixture.inboxIds()).containsExactly("m1");
  }

  @Test
  final void discardLeavesTheRowDiscardedWithWhoAndWhenAndRefusesASecondDiscardOrAReplay() throws Exception {
    park("payments", msg("m1", "o-1"), "boom");
    long id = only("m1").id();
    ParkedMessage d = admin.discardParked(id, "bob");
    assertThat(d.state()).isEqualTo(ParkedState.DISCARDED);
    assertThat(d.stateBy()).isEqualTo("bob");
    ParkedAudit a = admin.parkedAudit(id).get(0);
    assertThat(a.action()).isEqualTo(ParkedAudit.DISCARDED);
    assertThat(a.actor()).isEqualTo("bob");
    assertThat(a.messageId()).isEqualTo("m1");
    assertThat(a.consumer()).isEqualTo("payments");
    assertThat(a.at()).isNotNull();
    assertThatThrownBy(() -> admin.discardParked(id, "bob"))
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.ALREADY_DISCARDED));
    assertThatThrownBy(() -> admin.replayParked(id, "bob"))
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.ALREADY_DISCARDED));
    assertThatThrownBy(() -> admin.discardParked(id + 1000, "bob"))
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.NOT_FOUND));
    assertThatThrownBy(() -> admin.replayParked(id + 1000, "bob"))
        .satisfies(e -> assertThat(((ParkedMessageException) e).problem()).isEqualTo(Problem.NOT_FOUND));
    assertThat(admin.parkedAudit(id)).hasSize(1);
    assertThat(admin.parked(ParkedFilter.open())).isEmpty();
  }

  @Test
  final void bulkReplayAndDiscardApplyToTheFilteredOpenRowsUpToTheLimit() throws Exception {
    for (int i = 1; i <= 4; i++) {
      park("payments", msg("p" + i, "o-" + i), "boom " + i);
    }
    park("shipping", msg("s1", "o-9"), "boom");
    assertThat(admin.replayParked(ParkedFilter.open().consumer("payments").limit(3), "alice")).isEqualTo(3);
    assertThat(admin.parked(ParkedFilter.open().states(ParkedState.REPLAYING))).extracting(ParkedMessage::messageId)
        .containsExactly("p1", "p2", "p3");
    assertThat(admin.replayParked(ParkedFilter.open().consumer("payments"), "alice")).isEqualTo(1); // p4 only
    assertThat(admin.discardParked(ParkedFilter.open().reasonContains("boom 2"), "bob")).isEqualTo(1);
    assertThat(only("p2").state()).isEqualTo(ParkedState.DISCARDED);
    assertThat(admin.parkedAudit(only("p2").id())).extracting(ParkedAudit::action)
        .containsExactly(ParkedAudit.REPLAY_REQUESTED, ParkedAudit.DISCARDED);
    assertThat(admin.discardParked(ParkedFilter.open().consumer("nobody"), "bob")).isZero();
  }

  @Test
  final void theSummaryCountsOpenRowsPerConsumerWithTheOldestAge() throws Exception {
    assertThat(admin.parkedSummary()).isEmpty();
    park("payments", msg("m1", "o-1"), "boom");
    park("payments", msg("m2", "o-2"), "boom");
    park("shipping", msg("m3", "o-3"), "boom");
    admin.replayParked(only("m2").id(), "alice");
    admin.discardParked(only("m3").id(), "bob");
    List<ParkedSummary> s = admin.parkedSummary();
    assertThat(s).extracting(ParkedSummary::consumer, ParkedSummary::parked, ParkedSummary::replaying)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("payments", 1L, 1L));
    assertThat(s.get(0).oldestParkedAge()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(Duration.ofHours(1));
  }
}
