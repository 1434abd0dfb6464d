package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.CompletionMode;
import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.MariaDbDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * InnoDB locks every row a locking statement's scan touches, so each relay statement on MariaDB
 * must reach only its own rows. Each test lets a second connection hold a lock on a row that is
 * not the statement's (another relay's node or lease row) and runs the statement with a 1 s lock
 * wait: a scan that met the foreign row would wait and fail. The rows locked are also read from
 * {@code information_schema.innodb_trx}.
 */
class MariaDbLockScopeTest {
  private static final MariaDbDialect DIALECT = MariaDbDialect.INSTANCE;
  private static final Duration TTL = Duration.ofSeconds(30);

  private MariaDbDatabase db;
  private DataSource ds;

  @BeforeEach
  void migrate() {
    db = MariaDbDatabase.create();
    ds = db.dataSource();
    JdbcStore.builder(ds).build().migrate();
  }

  @AfterEach
  void drop() {
    db.close();
  }

  @Test
  void heartbeatForgetsDeadNodesWithoutTouchingLiveOnes() throws Exception {
    try (Connection setup = ds.getConnection(); Statement st = setup.createStatement()) {
      for (int i = 0; i < 10; i++) {
        st.execute("INSERT INTO twinbox_relay_node (node_id, heartbeat_at) VALUES ('dead-" + i
            + "', UTC_TIMESTAMP(6) - INTERVAL 1 HOUR)");
        st.execute("INSERT INTO twinbox_relay_node (node_id, heartbeat_at) VALUES ('live-" + i
            + "', UTC_TIMESTAMP(6))");
      }
    }
    try (Connection other = begin(); Connection relay = begin()) {
      lockRow(other, "SELECT * FROM twinbox_relay_node WHERE node_id = 'live-3' FOR UPDATE");
      int live = DIALECT.heartbeat(relay, "relay-a", Duration.ofSeconds(10));
      assertThat(live).isEqualTo(11);
      // Its own row and the 10 dead ones; none of the 10 live rows of other relays.
      assertThat(rowsLocked(relay)).isBetween(1L, 11L);
      relay.commit();
      other.rollback();
    }
    assertThat(count("SELECT count(*) FROM twinbox_relay_node WHERE node_id LIKE 'dead-%'")).isZero();
  }

  @Test
  void acquireLocksOnlyTheLeasesItTakes() throws Exception {
    try (Connection other = begin(); Connection relay = begin()) {
      List<PartitionLease> theirs = DIALECT.acquire(other, "relay-b", 8, TTL);
      assertThat(theirs).hasSize(8);
      List<PartitionLease> mine = DIALECT.acquire(relay, "relay-a", 4, TTL);
      assertThat(mine).hasSize(4);
      assertThat(mine).extracting(PartitionLease::partition)
          .doesNotContainAnyElementsOf(theirs.stream().map(PartitionLease::partition).toList());
      // Exactly the two relays' leases are locked: nothing else was touched on the way.
      assertThat(lockedLeaseRows()).containsExactlyInAnyOrderElementsOf(partitions(theirs, mine));
      relay.commit();
      other.commit();
    }
  }

  @Test
  void renewReleaseAndCompleteReachOnlyTheHeldLeases() throws Exception {
    List<PartitionLease> mine;
    List<PartitionLease> theirs;
    try (Connection c = begin()) {
      mine = DIALECT.acquire(c, "relay-a", 4, TTL);
      theirs = DIALECT.acquire(c, "relay-b", 8, TTL);
      c.commit();
    }
    try (Connection other = begin(); Connection relay = begin()) {
      // Another relay is inside its completion: its lease rows are locked (one by one, by key).
      for (PartitionLease l : theirs) {
        lockRow(other, "SELECT * FROM twinbox_relay_lease WHERE partition_no = " + l.partition() + " FOR UPDATE");
      }

      assertThat(DIALECT.renew(relay, "relay-a", mine, TTL)).containsExactlyInAnyOrderElementsOf(mine);
      assertThat(lockedLeaseRows()).containsExactlyInAnyOrderElementsOf(partitions(theirs, mine));
      relay.commit();

      DIALECT.complete(relay, "relay-a", mine, List.of(), List.of(), CompletionMode.DELETE);
      assertThat(lockedLeaseRows()).containsExactlyInAnyOrderElementsOf(partitions(theirs, mine));
      relay.commit();

      DIALECT.release(relay, "relay-a", mine);
      assertThat(lockedLeaseRows()).containsExactlyInAnyOrderElementsOf(partitions(theirs, mine));
      relay.commit();
      other.rollback();
    }
    assertThat(count("SELECT count(*) FROM twinbox_relay_lease WHERE owner = 'relay-a'")).isZero();
  }

  @Test
  void claimAndCompletionNeverWaitOnAWritersUncommittedRow() throws Exception {
    List<PartitionLease> all;
    try (Connection c = begin()) {
      all = DIALECT.acquire(c, "relay-a", 64, TTL);
      c.commit();
    }
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      for (int i = 0; i < 20; i++) {
        st.execute("INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, type, version, payload)"
            + " VALUES (UUID(), 'Order', 'order-" + i + "', 'OrderPlaced', 1, '{}')");
      }
    }
    try (Connection writer = begin(); Connection relay = begin()) {
      // A writer's transaction is open with a new event of an aggregate the relay also publishes.
      try (Statement st = writer.createStatement()) {
        st.execute("INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, type, version, payload)"
            + " VALUES (UUID(), 'Order', 'order-late', 'OrderPlaced', 1, '{}')");
      }
      List<io.twinbox.spi.OutboxMessage> claimed = DIALECT.claim(relay, "relay-a", all, 100).stream()
          .map(io.twinbox.spi.OutboxMessage.class::cast).toList();
      assertThat(claimed).hasSize(20);
      relay.commit();
      io.twinbox.spi.Completion done =
          DIALECT.complete(relay, "relay-a", all, claimed, List.of(), CompletionMode.DELETE);
      assertThat(done.completed()).isEqualTo(20);
      // The 64 lease rows it holds and the 20 rows it deleted.
      assertThat(rowsLocked(relay)).isLessThanOrEqualTo(64 + 20);
      relay.commit();
      writer.rollback();
    }
  }

  @Test
  void aRelayFrozenInsideItsTransactionIsEndedByTheServer() throws Exception {
    Connection frozen = begin();
    try {
      DIALECT.prepareRelayTransaction(frozen);
      assertThat(DIALECT.acquire(frozen, "frozen", 64, TTL)).hasSize(64);
      // The frozen relay sends nothing more. Its rows are locked: a successor skips them...
      try (Connection successor = begin()) {
        assertThat(DIALECT.acquire(successor, "successor", 64, TTL)).isEmpty();
        successor.rollback();
      }
      // ...until the server ends the idle transaction and its locks go with it.
      long start = System.nanoTime();
      List<PartitionLease> taken = List.of();
      while (taken.isEmpty() && System.nanoTime() - start < Duration.ofSeconds(20).toNanos()) {
        Thread.sleep(250);
        try (Connection successor = begin()) {
          taken = DIALECT.acquire(successor, "successor", 64, TTL);
          successor.commit();
        }
      }
      long waitedMs = (System.nanoTime() - start) / 1_000_000;
      System.out.println("[frozen-relay] successor took " + taken.size() + " leases after " + waitedMs + " ms");
      assertThat(taken).hasSize(64);
      assertThat(waitedMs).isGreaterThanOrEqualTo(1_000); // not before the timeout
      assertThatThrownBy(frozen::commit).isInstanceOf(SQLException.class);
    } finally {
      frozen.abort(Runnable::run);
    }
  }

  @Test
  void theRelaySettingDoesNotOutliveItsTransaction() throws Exception {
    JdbcStore store = JdbcStore.builder(ds).build();
    store.heartbeat("relay-a", TTL);
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@session.idle_transaction_timeout, @@global.idle_transaction_timeout")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(rs.getLong(2));
    }
  }

  /** A pooled connection in a transaction that gives up any lock wait after 1 s. */
  private Connection begin() throws SQLException {
    Connection c = ds.getConnection();
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION innodb_lock_wait_timeout = 1");
    }
    c.setAutoCommit(false);
    return c;
  }

  private static void lockRow(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      assertThat(rs.next()).as("row to lock: " + sql).isTrue();
    }
  }

  /**
   * The lease rows some transaction holds locked right now: every row that a probe's {@code FOR
   * UPDATE SKIP LOCKED} cannot take. Exact, unlike {@code innodb_trx.trx_rows_locked}, which counts a
   * row once per lock structure (a row locked by a read and again by an update may count twice).
   */
  private Set<Integer> lockedLeaseRows() throws SQLException {
    Set<Integer> all = new HashSet<>();
    Set<Integer> free = new HashSet<>();
    try (Connection probe = begin(); Statement st = probe.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT partition_no FROM twinbox_relay_lease")) {
        while (rs.next()) {
          all.add(rs.getInt(1));
        }
      }
      try (ResultSet rs = st.executeQuery(
          "SELECT partition_no FROM twinbox_relay_lease FORCE INDEX (PRIMARY) FOR UPDATE SKIP LOCKED")) {
        while (rs.next()) {
          free.add(rs.getInt(1));
        }
      }
      probe.rollback();
    }
    all.removeAll(free);
    return all;
  }

  @SafeVarargs
  private static List<Integer> partitions(List<PartitionLease>... leases) {
    List<Integer> result = new ArrayList<>();
    for (List<PartitionLease> l : leases) {
      l.forEach(p -> result.add(p.partition()));
    }
    return result;
  }

  /**
   * Rows the connection's open InnoDB transaction has locked. InnoDB serves {@code innodb_trx} from
   * a cache that a read refreshes only when it is more than 100 ms old, so wait that out first:
   * otherwise a probe right after the previous one sees the previous moment.
   */
  private long rowsLocked(Connection c) throws SQLException, InterruptedException {
    Thread.sleep(150);
    long thread;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      thread = rs.getLong(1);
    }
    try (Connection probe = ds.getConnection(); PreparedStatement ps = probe.prepareStatement(
        "SELECT trx_rows_locked FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ?")) {
      ps.setLong(1, thread);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("an open transaction").isTrue();
        return rs.getLong(1);
      }
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
