package io.twinbox.jdbc;

import io.twinbox.contract.StoreFixture;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxStore;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The JDBC store on a fresh PostgreSQL or MariaDB database, for core's store contracts and the
 * testkit's SQL-level ones. What the store holds is read with plain, portable SQL.
 */
final class JdbcFixture implements StoreFixture, io.twinbox.testkit.contract.StoreFixture {
  private final String name;
  private final AutoCloseable main;
  private final AutoCloseable empty;
  private final DataSource dataSource;
  private final DataSource emptyDataSource;
  private final JdbcStore store;
  private final JdbcStore unmigrated;

  private JdbcFixture(String name, AutoCloseable main, DataSource ds, AutoCloseable empty, DataSource emptyDs) {
    this(name, main, ds, empty, emptyDs, b -> b);
  }

  private JdbcFixture(String name, AutoCloseable main, DataSource ds, AutoCloseable empty, DataSource emptyDs,
      UnaryOperator<JdbcStore.Builder> options) {
    this.name = name;
    this.main = main;
    this.empty = empty;
    this.dataSource = ds;
    this.emptyDataSource = emptyDs;
    this.store = options.apply(JdbcStore.builder(ds)).build();
    this.store.migrate();
    this.unmigrated = JdbcStore.builder(emptyDs).build();
    try {
      Sql.exec(ds, "CREATE TABLE IF NOT EXISTS twinbox_test_wallet (id int PRIMARY KEY, balance int NOT NULL)");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not create the test wallet", e);
    }
  }

  static JdbcFixture postgres() {
    PostgresDatabase db = PostgresDatabase.create();
    PostgresDatabase empty = PostgresDatabase.create();
    return new JdbcFixture("PostgreSQL", db, db.dataSource(), empty, empty.dataSource());
  }

  /** PostgreSQL with the outbox partitioned by time (daily partitions, schema script P1). */
  static JdbcFixture postgresPartitioned() {
    PostgresDatabase db = PostgresDatabase.create();
    PostgresDatabase empty = PostgresDatabase.create();
    JdbcFixture f = new JdbcFixture("PostgreSQL (partitioned outbox)", db, db.dataSource(), empty, empty.dataSource(),
        JdbcStore.Builder::partitionedOutbox);
    if (!f.store.outboxPartitioned()) {
      throw new IllegalStateException("the partitioned fixture's outbox is not partitioned");
    }
    return f;
  }

  static JdbcFixture mariadb() {
    MariaDbDatabase db = MariaDbDatabase.create();
    MariaDbDatabase empty = MariaDbDatabase.create();
    return new JdbcFixture("MariaDB", db, db.dataSource(), empty, empty.dataSource());
  }

  JdbcStore jdbcStore() {
    return store;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DataSource dataSource() {
    return dataSource;
  }

  @Override
  public OutboxStore store() {
    return store;
  }

  @Override
  public OutboxAdminStore adminStore() {
    return store;
  }

  @Override
  public InboxStore inboxStore() {
    return JdbcInboxStore.of(store);
  }

  @Override
  public OutboxStore unmigratedStore() {
    return unmigrated;
  }

  @Override
  public DataSource unmigratedDataSource() {
    return emptyDataSource;
  }

  @Override
  public void reset() throws Exception {
    Sql.reset(dataSource);
    Sql.exec(dataSource, "DELETE FROM twinbox_test_wallet");
    Sql.exec(dataSource, "INSERT INTO twinbox_test_wallet VALUES (1, 1000)");
  }

  @Override
  public List<OutboxRow> outboxRows() throws Exception {
    List<OutboxRow> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT aggregate_id, sequence, payload, status, attempts, last_error, published_at FROM twinbox_outbox"
            + " ORDER BY position");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(new OutboxRow(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getInt(5),
            rs.getString(6), rs.getObject(7) != null));
      }
    }
    return rows;
  }

  @Override
  public long lastSequence(String aggregateType, String aggregateId) throws Exception {
    List<String> rows = Sql.rows(dataSource,
        "SELECT last_sequence FROM twinbox_aggregate WHERE aggregate_type = ? AND aggregate_id = ?", aggregateType,
        aggregateId);
    return rows.isEmpty() ? 0 : Long.parseLong(rows.get(0));
  }

  @Override
  public Map<String, String> relayNodes() throws Exception {
    Map<String, String> nodes = new LinkedHashMap<>();
    for (String row : Sql.rows(dataSource, "SELECT node_id, instance FROM twinbox_relay_node ORDER BY node_id")) {
      String[] p = row.split("\\|", 2);
      nodes.put(p[0], "null".equals(p[1]) ? null : p[1]);
    }
    return nodes;
  }

  @Override
  public int partitionsOwnedBy(String owner) throws Exception {
    return (int) Sql.count(dataSource, "SELECT count(*) FROM twinbox_relay_lease WHERE owner = ?", owner);
  }

  @Override
  public List<String> inboxIds() throws Exception {
    return Sql.rows(dataSource, "SELECT message_id FROM twinbox_inbox ORDER BY received_at, message_id");
  }

  @Override
  public void ageInboxRecords(Duration age) throws Exception {
    Sql.exec(dataSource, "UPDATE twinbox_inbox SET received_at = ?", Timestamp.from(Instant.now().minus(age)));
  }

  @Override
  public List<Parked> parked() throws Exception {
    return Sql.rows(dataSource, "SELECT consumer, message_id, reason FROM twinbox_inbox_parked ORDER BY id").stream()
        .map(r -> r.split("\\|", 3)).map(p -> new Parked(p[0], p[1], p[2])).toList();
  }

  @Override
  public Wallet wallet() {
    return new Wallet() {
      @Override
      public void debit(Connection c, int amount) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_test_wallet SET balance = balance - ? WHERE id = 1")) {
          ps.setInt(1, amount);
          ps.executeUpdate();
        }
      }

      @Override
      public long balance() throws Exception {
        return Sql.count(dataSource, "SELECT balance FROM twinbox_test_wallet WHERE id = 1");
      }
    };
  }

  @Override
  public void close() {
    for (AutoCloseable c : new AutoCloseable[] {main, empty}) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not drop a test database", e);
      }
    }
  }
}
