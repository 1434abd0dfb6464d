package io.twinbox.it;

import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The store the scenarios run on, chosen by {@code -Dtwinbox.it.store=postgresql|mariadb}
 * (default PostgreSQL): a fresh database of the testkit, and the few statements the tests run
 * themselves that differ between the two. {@code -Dtwinbox.it.scale} (default 1) scales event
 * counts, so a second store's run keeps the module's time in bounds. {@code
 * -Dtwinbox.it.partitioned=true} migrates the outbox partitioned by time (PostgreSQL).
 */
final class TestDb implements AutoCloseable {
  static final String STORE = System.getProperty("twinbox.it.store", "postgresql").toLowerCase(Locale.ROOT);
  static final boolean MARIADB;
  /** {@code -Dtwinbox.it.partitioned=true}: the scenarios run on the time-partitioned outbox (PostgreSQL). */
  static final boolean PARTITIONED = Boolean.getBoolean("twinbox.it.partitioned");

  static {
    if (!STORE.equals("postgresql") && !STORE.equals("mariadb")) {
      throw new IllegalArgumentException("twinbox.it.store must be postgresql or mariadb, was '" + STORE + "'");
    }
    MARIADB = STORE.equals("mariadb");
  }

  private final AutoCloseable database;
  private final DataSource dataSource;
  private final String jdbcUrl;
  private final String user;
  private final String password;

  private TestDb(AutoCloseable database, DataSource dataSource, String jdbcUrl, String user, String password) {
    this.database = database;
    this.dataSource = dataSource;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
  }

  /** A new, empty database on the chosen store; skips (fails with CI=true) if its server is down. */
  static TestDb create() {
    if (MARIADB) {
      LocalServers.require("MariaDB", "127.0.0.1", 3306);
      MariaDbDatabase db = MariaDbDatabase.create();
      return new TestDb(db, db.dataSource(), db.jdbcUrl(), db.databaseUser(), db.databasePassword());
    }
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    PostgresDatabase db = PostgresDatabase.create();
    return new TestDb(db, db.dataSource(), db.jdbcUrl(), db.user(), db.password());
  }

  /** A database made elsewhere (a private PostgreSQL cluster); closing it closes {@code database}. */
  static TestDb of(AutoCloseable database, DataSource dataSource, String jdbcUrl, String user, String password) {
    return new TestDb(database, dataSource, jdbcUrl, user, password);
  }

  /** A store on {@code ds}, with the partitioned outbox when {@link #PARTITIONED}. */
  static io.twinbox.jdbc.JdbcStore store(DataSource ds) {
    io.twinbox.jdbc.JdbcStore.Builder b = io.twinbox.jdbc.JdbcStore.builder(ds);
    return (PARTITIONED ? b.partitionedOutbox() : b).build();
  }

  /** {@code n} times {@code twinbox.it.scale}, at least {@code min}. */
  static int scaled(int n, int min) {
    double scale = Double.parseDouble(System.getProperty("twinbox.it.scale", "1"));
    return Math.max(min, (int) Math.round(n * scale));
  }

  /** The writers' business table, next to the outbox rows. */
  static String businessTableDdl() {
    return MARIADB
        ? "CREATE TABLE IF NOT EXISTS orders (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
            + " aggregate_id VARCHAR(255) NOT NULL, note TEXT NOT NULL) ENGINE = InnoDB"
        : "CREATE TABLE IF NOT EXISTS orders (id bigserial PRIMARY KEY, aggregate_id text NOT NULL,"
            + " note text NOT NULL)";
  }

  /** The current time in the store's own lease arithmetic (UTC on MariaDB). */
  static String now() {
    return MARIADB ? "UTC_TIMESTAMP(6)" : "clock_timestamp()";
  }

  /** Binds an event id: a {@code uuid} on PostgreSQL, a {@code VARCHAR(36)} on MariaDB. */
  static void setId(java.sql.PreparedStatement ps, int index, java.util.UUID id) throws java.sql.SQLException {
    if (MARIADB) {
      ps.setString(index, id.toString());
    } else {
      ps.setObject(index, id);
    }
  }

  DataSource dataSource() {
    return dataSource;
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  @Override
  public void close() {
    try {
      database.close();
    } catch (Exception e) {
      throw new IllegalStateException("cannot drop the test database", e);
    }
  }
}
