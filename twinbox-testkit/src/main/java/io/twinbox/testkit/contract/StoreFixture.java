package io.twinbox.testkit.contract;

import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxStore;
import javax.sql.DataSource;

/**
 * What a store's contract tests need from it: a migrated store on a fresh database, and a second,
 * empty database to show how an unmigrated schema fails. Implemented in a few lines per store
 * (see {@code twinbox-jdbc}'s tests).
 */
public interface StoreFixture extends AutoCloseable {

  /** A name for messages, e.g. {@code PostgreSQL}. */
  String name();

  /** The migrated database. Tests may run plain, portable SQL on it. */
  DataSource dataSource();

  /** The outbox store on {@link #dataSource()}, migrated. */
  OutboxStore store();

  /** The operator's view of {@link #store()}; by default the store itself. */
  default OutboxAdminStore adminStore() {
    return (OutboxAdminStore) store();
  }

  /** The inbox store on {@link #dataSource()}. */
  InboxStore inboxStore();

  /** A store on a second, empty database: its schema was never migrated. */
  OutboxStore unmigratedStore();

  /** The second, empty database. */
  DataSource unmigratedDataSource();

  /** Drops the databases. */
  @Override
  void close();
}
