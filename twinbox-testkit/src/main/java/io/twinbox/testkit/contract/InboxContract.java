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
import io.twinbox.RetryPolicy;
import io.twinbox.spi.InboxStore;
import io.twinbox.testkit.ListSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Collections;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Core's public {@link io.twinbox.InboxConsumer}, driven over a {@link ListSource}, on a real
 * database: each outcome reported once after its commit, a failing batch handler narrowed down to
 * its message. The store-level inbox rules are core's {@code
 * io.twinbox.contract.InboxStoreContract}, which runs on every store including the in-memory one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxContract {
  /** Ample for a handful of messages; a run that needs it all has hung. */
  private static final Duration RUN_LIMIT = Duration.ofSeconds(30);

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

  /**
   * The inbox consumer (core's, behind every broker's) reports each message's outcome to the
   * inbox listener exactly once and only after its commit: a batch rolled back by a failing message
   * and retried does not count its leading messages twice, and a parked message is reported.
   */
  @Test
  final void theConsumerReportsEachOutcomeOnceAfterItsCommit() throws Exception {
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
    ListSource source = ListSource.of(msg("r1", 1), msg("r2", 1), msg("r3", 1), msg("r4", 1), msg("r5", 1),
        msg("r6", 1), msg("r1", 1));

    assertThat(source.runAtMost(RUN_LIMIT, b -> b.inbox(counted, ds).handler(flaky).batchSize(50).retryPolicy(retry)))
        .isEqualTo(7);

    assertThat(heard).filteredOn(h -> h.startsWith("processed"))
        .containsExactlyInAnyOrder("processed r1", "processed r2", "processed r3", "processed r4", "processed r6");
    assertThat(heard).filteredOn(h -> h.startsWith("duplicate")).containsExactly("duplicate r1");
    assertThat(heard).filteredOn(h -> h.startsWith("parked")).singleElement().asString()
        .startsWith("parked r5: ").contains("handler failed 2 times");
    assertThat(source.stats().processed()).isEqualTo(5);
    assertThat(source.stats().duplicates()).isEqualTo(1);
    assertThat(source.parked()).as("settled as parked").isEqualTo(1);
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
    ListSource source = ListSource.of(msg("p1", 1), msg("p2", 1), msg("p3", 1), msg("p4", 1), msg("p5", 1),
        msg("p6", 1));

    assertThat(source.runAtMost(RUN_LIMIT, b -> b.inbox(counted, ds).handler(poisoned).batchSize(50)
        .retryPolicy(retry))).isEqualTo(6);

    assertThat(processed).containsExactlyInAnyOrder("p1", "p2", "p4", "p5", "p6");
    assertThat(balance()).isEqualTo(1000 - 5);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE message_id = 'p3'"))
        .singleElement().asString().contains("handler failed 2 times").contains("p3 cannot be applied");
  }

}
