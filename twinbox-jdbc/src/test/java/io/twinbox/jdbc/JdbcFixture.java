package io.twinbox.jdbc;

import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.StoreFixture;
import javax.sql.DataSource;

/** The JDBC store on a fresh PostgreSQL or MariaDB database, for the testkit's contracts. */
final class JdbcFixture implements StoreFixture {
  private final String name;
  private final AutoCloseable main;
  private final AutoCloseable empty;
  private final DataSource dataSource;
  private final DataSource emptyDataSource;
  private final JdbcStore store;
  private final JdbcStore unmigrated;

  private JdbcFixture(String name, AutoCloseable main, DataSource ds, AutoCloseable empty, DataSource emptyDs) {
    this.name = name;
    this.main = main;
    this.empty = empty;
    this.dataSource = ds;
    this.emptyDataSource = emptyDs;
    this.store = JdbcStore.builder(ds).build();
    this.store.migrate();
    this.unmigrated = JdbcStore.builder(emptyDs).build();
  }

  static JdbcFixture postgres() {
    PostgresDatabase db = PostgresDatabase.create();
    PostgresDatabase empty = PostgresDatabase.create();
    return new JdbcFixture("PostgreSQL", db, db.dataSource(), empty, empty.dataSource());
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
