package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedState;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.spi.InboxAdminStore;
import io.twinbox.spi.InboxStore;
import io.twinbox.testkit.ListSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 17, acceptance 2 at core level: a handler that fails for one message id parks it; after the
 * handler is fixed, an operator's replay is carried out by the running {@link InboxConsumer} of
 * that consumer name — once: the effect is applied exactly once, a second replay is a typed error
 * that changes nothing, a redelivery afterwards is a duplicate; a replay whose handler still fails
 * parks the message again with the new reason; a discard leaves an audit record. Driven over a
 * testkit {@link ListSource}, on a real database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxReplayContract {
  private static final RetryPolicy TWO_ATTEMPTS =
      RetryPolicy.builder().maxAttempts(2).backoff(Duration.ZERO, Duration.ofMillis(5)).build();
  private static final Duration WAIT = Duration.ofSeconds(15);

  private StoreFixture fixture;
  private DataSource ds;
  private InboxStore store;
  private InboxAdminStore admin;
  private final AtomicBoolean broken = new AtomicBoolean();

  /** Debits the message's amount; fails for message "m2" while {@link #broken}, refuses "poison" always. */
  private final InboxHandler handler = (c, m) -> {
    if (m.id().equals("poison")) {
      throw new UnprocessableMessageException("poison pill");
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_test_wallet SET balance = balance - ? WHERE id = 1")) {
      ps.setInt(1, Integer.parseInt(m.payload().replaceAll("\\D", "")));
      ps.executeUpdate();
    }
    if (m.id().equals("m2") && broken.get()) {
      throw new IllegalStateException("downstream rejects m2");
    }
  };

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() throws Exception {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.inboxStore();
    admin = (InboxAdminStore) store;
    exec(ds, "CREATE TABLE IF NOT EXISTS twinbox_test_wallet (id int PRIMARY KEY, balance int NOT NULL)");
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
    broken.set(true);
  }

  private static InboxMessage msg(String id, int amount) {
    return new InboxMessage(id, "OrderCreated", 1, "/orders", "Order", "o-" + id, 1, "{\"amount\":" + amount + "}",
        Map.of("k", "v"), null, null, null, null, "test@" + id);
  }

  private InboxConsumer consumer(ListSource source) {
    InboxConsumer c = InboxConsumer.builder(source).inbox(Inbox.builder(store, "payments").build(), ds)
        .handler(handler).retryPolicy(TWO_ATTEMPTS).replayInterval(Duration.ofMillis(100)).build();
    c.start();
    return c;
  }

  private long balance() throws Exception {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT balance FROM twinbox_test_wallet WHERE id = 1"); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private ParkedMessage parked(String messageId) {
    return admin.parked(ParkedFilter.any().consumer("payments")).stream()
        .filter(p -> p.messageId().equals(messageId)).findFirst().orElse(null);
  }

  private static <T> T await(String what, Supplier<T> probe) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      T v = probe.get();
      if (v != null) {
        return v;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  /** Waits until the consumer's replay counts equal {@code expected} (they may never pass it). */
  private static void awaitReplays(InboxConsumer consumer, InboxConsumer.Replays expected) throws InterruptedException {
    try {
      await("replays " + expected, () -> consumer.replays().equals(expected) ? true : null);
    } catch (AssertionError e) {
      assertThat(consumer.replays()).isEqualTo(expected);
    }
  }

  private ParkedMessage awaitState(long id, ParkedState state) throws InterruptedException {
    return await(id + " " + state, () -> admin.parkedMessage(id, false).filter(p -> p.state() == state).orElse(null));
  }

  @Test
  final void aFixedHandlerReplaysTheParkedMessageOnceAndASecondReplayChangesNothing() throws Exception {
    ListSource source = ListSource.of(msg("m1", 1), msg("m2", 10), msg("m3", 100), msg("poison", 1000));
    try (InboxConsumer consumer = consumer(source)) {
      await("4 settled", () -> source.settled() == 4 ? true : null);
      ParkedMessage p = parked("m2");
      assertThat(p.state()).isEqualTo(ParkedState.PARKED);
      assertThat(p.reason()).contains("downstream rejects m2");
      assertThat(balance()).isEqualTo(1000 - 1 - 100);

      broken.set(false); // the handler is fixed
      admin.requestReplay(p.id(), "alice");
      ParkedMessage done = awaitState(p.id(), ParkedState.REPLAYED);
      assertThat(done.stateBy()).isEqualTo("consumer:payments");
      assertThat(balance()).isEqualTo(1000 - 1 - 100 - 10); // m2's effect: exactly once
      // The consumer counts a replay after its commit, so the state can be seen a moment before the count.
      awaitReplays(consumer, new InboxConsumer.Replays(1, 0, 0));

      assertThatThrownBy(() -> admin.requestReplay(p.id(), "alice")).isInstanceOf(ParkedMessageException.class)
          .satisfies(e -> assertThat(((ParkedMessageException) e).problem())
              .isEqualTo(ParkedMessageException.Problem.ALREADY_REPLAYED));
      Thread.sleep(500); // five replay polls: nothing may happen
      assertThat(balance()).isEqualTo(1000 - 111);
      assertThat(admin.parkedMessage(p.id(), false).orElseThrow()).isEqualTo(done);
      assertThat(admin.audit(p.id())).extracting(ParkedAudit::action, ParkedAudit::actor).containsExactly(
          org.assertj.core.groups.Tuple.tuple(ParkedAudit.REPLAY_REQUESTED, "alice"),
          org.assertj.core.groups.Tuple.tuple(ParkedAudit.REPLAYED, "consumer:payments"));

      long poison = parked("poison").id();
      assertThat(admin.discard(poison, "bob").state()).isEqualTo(ParkedState.DISCARDED);
      assertThat(admin.audit(poison)).singleElement().satisfies(a -> {
        assertThat(a.action()).isEqualTo(ParkedAudit.DISCARDED);
        assertThat(a.actor()).isEqualTo("bob");
        assertThat(a.at()).isNotNull();
      });
    }
    // the broker redelivers m2 after its replay: a duplicate, no second effect
    ListSource again = ListSource.of(msg("m2", 10));
    try (InboxConsumer consumer = consumer(again)) {
      await("redelivery settled", () -> again.settled() == 1 ? true : null);
      consumer.close();
      assertThat(consumer.stats().duplicates()).isEqualTo(1);
    }
    assertThat(balance()).isEqualTo(1000 - 111);
  }

  @Test
  final void aReplayWhoseHandlerStillFailsParksTheMessageAgainWithTheNewReason() throws Exception {
    ListSource source = ListSource.of(msg("m2", 10));
    try (InboxConsumer consumer = consumer(source)) {
      await("parked", () -> parked("m2"));
      ParkedMessage p = parked("m2");
      admin.requestReplay(p.id(), "alice"); // still broken
      ParkedMessage back = await("back to parked", () -> admin.parkedMessage(p.id(), false)
          .filter(m -> m.state() == ParkedState.PARKED && m.stateAt() != null).orElse(null));
      assertThat(back.reason()).startsWith("replay failed:").contains("downstream rejects m2");
      assertThat(back.attempts()).isEqualTo(p.attempts() + 1);
      assertThat(balance()).isEqualTo(1000); // rolled back
      awaitReplays(consumer, new InboxConsumer.Replays(0, 0, 1));
      assertThat(admin.audit(p.id())).extracting(ParkedAudit::action)
          .containsExactly(ParkedAudit.REPLAY_REQUESTED, ParkedAudit.REPLAY_FAILED);

      broken.set(false);
      admin.requestReplay(p.id(), "alice");
      awaitState(p.id(), ParkedState.REPLAYED);
      assertThat(balance()).isEqualTo(990);
    }
  }

  @Test
  final void aReplayRequestWaitsForItsConsumerAndAnotherConsumerNeverTakesIt() throws Exception {
    ListSource source = ListSource.of(msg("m2", 10));
    long id;
    try (InboxConsumer consumer = consumer(source)) {
      id = await("parked", () -> parked("m2")).id();
    }
    broken.set(false);
    admin.requestReplay(id, "alice");
    ListSource other = ListSource.of();
    try (InboxConsumer shipping = InboxConsumer.builder(other).inbox(Inbox.builder(store, "shipping").build(), ds)
        .handler(handler).replayInterval(Duration.ofMillis(100)).build()) {
      shipping.start();
      Thread.sleep(500);
      assertThat(admin.parkedMessage(id, false).orElseThrow().state()).isEqualTo(ParkedState.REPLAYING);
    }
    try (InboxConsumer consumer = consumer(ListSource.of())) {
      awaitState(id, ParkedState.REPLAYED);
    }
    assertThat(balance()).isEqualTo(990);
    assertThat(List.of(admin.parkedSummary().size())).containsExactly(0);
  }
}
