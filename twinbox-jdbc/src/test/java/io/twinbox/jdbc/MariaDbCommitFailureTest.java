package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.testkit.ListSource;
import io.twinbox.testkit.MariaDbDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The failure classification of issue 22 (Medium-3) on MariaDB. InnoDB has no deferrable
 * constraints and a failed statement rolls back only itself — the transaction stays usable — so
 * nothing a handler does can make the COMMIT fail: {@code PostgresCommitFailureTest}'s two cases
 * do not arise here (the first test shows the second's). What MariaDB does have is a transient
 * error outside SQLSTATE class 40: the lock wait timeout (1205, SQLSTATE HY000), the database's
 * doing, which must not cost the message an attempt.
 */
class MariaDbCommitFailureTest {
  private static final RetryPolicy THREE =
      RetryPolicy.builder().maxAttempts(3).backoff(Duration.ZERO, Duration.ofMillis(5)).build();

  static MariaDbDatabase db;
  static DataSource ds;
  static JdbcStore store;

  @BeforeAll
  static void setUp() throws Exception {
    db = MariaDbDatabase.create();
    ds = db.dataSource();
    store = JdbcStore.builder(ds).build();
    store.migrate();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE applied (message_id VARCHAR(64) PRIMARY KEY)");
      st.execute("CREATE TABLE seat (id INT PRIMARY KEY, holder VARCHAR(64))");
      st.execute("INSERT INTO seat VALUES (1, NULL)");
    }
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static InboxMessage message(String id) {
    return new InboxMessage(id, "SeatTaken", 1, "/seats", "Seat", "1", 1, "{}", Map.of(), null, null, null, null,
        "test@" + id);
  }

  private static int runAtMost(Duration limit, String consumer, InboxHandler handler, InboxMessage... messages)
      throws InterruptedException {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), consumer).build();
    return ListSource.of(messages).runAtMost(limit,
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

  private static void apply(Connection c, InboxMessage m) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO applied VALUES (?)")) {
      ps.setString(1, m.id());
      ps.executeUpdate();
    }
  }

  @Test
  void anErrorTheHandlerSwallowedLeavesTheTransactionUsable() throws Exception {
    InboxHandler careless = (c, m) -> {
      if (m.id().equals("s2")) {
        try (Statement st = c.createStatement()) {
          st.execute("INSERT INTO applied VALUES ('s1')"); // a duplicate key: only this statement fails
        } catch (SQLException ignored) {
          // The handler's bug, harmless on InnoDB.
        }
      }
      apply(c, m);
    };

    assertThat(runAtMost(Duration.ofSeconds(4), "swallowed", careless, message("s1"), message("s2"))).isEqualTo(2);

    assertThat(column("SELECT message_id FROM applied WHERE message_id LIKE 's%' ORDER BY 1"))
        .containsExactly("s1", "s2");
    assertThat(column("SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'swallowed'")).containsExactly("0");
  }

  /** Before: 1205 (HY000) was the message's fault; three timeouts parked a message nothing was wrong with. */
  @Test
  void aLockWaitTimeoutInAHandlerCostsNoAttempt() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch timedOutPastMaxAttempts = new CountDownLatch(1);
    InboxHandler take = (c, m) -> {
      if (runs.incrementAndGet() > THREE.maxAttempts()) {
        timedOutPastMaxAttempts.countDown();
      }
      try (Statement st = c.createStatement()) {
        st.execute("SET STATEMENT innodb_lock_wait_timeout = 1 FOR UPDATE seat SET holder = 'l1' WHERE id = 1");
      }
      apply(c, m);
    };
    try (Connection holder = ds.getConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT * FROM seat WHERE id = 1 FOR UPDATE");
      }
      Thread releaser = new Thread(() -> {
        try {
          timedOutPastMaxAttempts.await(30, TimeUnit.SECONDS);
          holder.rollback();
        } catch (InterruptedException | SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      releaser.start();

      assertThat(runAtMost(Duration.ofSeconds(30), "locked", take, message("l1"))).isEqualTo(1);
      releaser.join();
    }

    assertThat(runs.get()).as("timed out more often than maxAttempts, then applied").isGreaterThan(3);
    assertThat(column("SELECT message_id FROM applied WHERE message_id = 'l1'")).containsExactly("l1");
    assertThat(column("SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'locked'")).containsExactly("0");
    assertThat(column("SELECT count(*) FROM twinbox_inbox_attempt WHERE consumer = 'locked'")).containsExactly("0");
  }
}
