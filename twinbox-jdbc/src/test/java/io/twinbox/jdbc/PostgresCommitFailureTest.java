package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.testkit.ListSource;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failures that appear only at COMMIT are the message's doing when their SQLSTATE says so (issue
 * 22, Medium-3): a deferred constraint the handler broke (23505 at COMMIT) and a transaction the
 * handler aborted and swallowed the error of (25P02) cost attempts and end parked. Before, the
 * first was taken for database trouble and retried forever without an attempt; the second was
 * worse: pgjdbc turns the COMMIT of an aborted transaction into a silent ROLLBACK, so the healthy
 * message committed with it was acknowledged and lost.
 */
class PostgresCommitFailureTest {
  private static final RetryPolicy THREE =
      RetryPolicy.builder().maxAttempts(3).backoff(Duration.ZERO, Duration.ofMillis(5)).build();

  static PostgresDatabase db;
  static DataSource ds;
  static JdbcStore store;

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    ds = db.dataSource();
    store = JdbcStore.builder(ds).build();
    store.migrate();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE booking (slot text NOT NULL, message_id text NOT NULL,"
          + " CONSTRAINT booking_slot UNIQUE (slot) DEFERRABLE INITIALLY DEFERRED)");
      st.execute("CREATE TABLE applied (message_id text PRIMARY KEY)");
    }
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static InboxMessage message(String id, String slot) {
    return new InboxMessage(id, "SlotBooked", 1, "/slots", "Slot", slot, 1, "{\"slot\":\"" + slot + "\"}", Map.of(),
        null, null, null, null, "test@" + id);
  }

  /** At most 4 s, as the issue's probes; returns how many of the items are done. */
  private static int runAtMost(String consumer, InboxHandler handler, InboxMessage... messages)
      throws InterruptedException {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), consumer).build();
    return ListSource.of(messages).runAtMost(Duration.ofSeconds(4),
        b -> b.inbox(inbox, ds).handler(handler).batchSize(50).retryPolicy(THREE));
  }

  private static List<String> column(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  @Test
  void aDeferredConstraintBrokenByTheHandlerCostsAttemptsAndParks() throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    InboxHandler book = (c, m) -> {
      runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO booking (slot, message_id) VALUES (?, ?)")) {
        ps.setString(1, m.aggregateId());
        ps.setString(2, m.id());
        ps.executeUpdate(); // a second booking of a slot fails only at COMMIT
      }
    };
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("INSERT INTO booking VALUES ('s-taken', 'earlier')");
    }

    int done = runAtMost("deferred", book, message("d1", "s-1"), message("d2", "s-taken"), message("d3", "s-3"));

    assertThat(done).isEqualTo(3);
    assertThat(column("SELECT message_id FROM booking ORDER BY message_id")).containsExactly("d1", "d3", "earlier");
    assertThat(column("SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'deferred'"))
        .singleElement().asString().startsWith("transaction failed 3 times").contains("23505");
    // Its three attempts alone, plus the batch run whose failure nobody could be blamed for.
    assertThat(runs.get("d2")).hasValue(3 + 1);
    assertThat(column("SELECT count(*) FROM twinbox_inbox_attempt WHERE consumer = 'deferred'")).containsExactly("0");
  }

  @Test
  void anErrorTheHandlerSwallowedAbortsTheTransactionAndCostsAttempts() throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    InboxHandler careless = (c, m) -> {
      runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
      if (m.id().equals("a2")) {
        try (Statement st = c.createStatement()) {
          st.execute("SELECT 1 / 0");
        } catch (SQLException ignored) {
          // The handler's bug: PostgreSQL has aborted the transaction; every later statement and
          // the COMMIT fail (25P02).
        }
        return;
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO applied VALUES (?)")) {
        ps.setString(1, m.id());
        ps.executeUpdate();
      }
    };

    int done = runAtMost("aborted", careless, message("a1", "x"), message("a2", "y"), message("a3", "z"));

    assertThat(done).isEqualTo(3);
    assertThat(column("SELECT message_id FROM applied ORDER BY message_id")).containsExactly("a1", "a3");
    assertThat(column("SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'aborted'"))
        .singleElement().asString().startsWith("transaction failed 3 times").contains("25P02");
    assertThat(runs.get("a2")).hasValue(3 + 1);
    // In the batch a3 met a2's aborted transaction: not blamed, no attempt, applied when alone.
    assertThat(runs.get("a3")).hasValue(2);
    assertThat(column("SELECT count(*) FROM twinbox_inbox_attempt WHERE consumer = 'aborted'")).containsExactly("0");
  }
}
