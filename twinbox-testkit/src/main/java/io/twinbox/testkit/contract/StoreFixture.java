package io.twinbox.testkit.contract;

import io.twinbox.spi.InboxStore;
import javax.sql.DataSource;

/**
 * What the testkit's SQL-level inbox contracts ({@link InboxContract}, {@link InboxParkingContract})
 * need from a store: a migrated database they may run plain SQL on, and the inbox store on it. The
 * store-neutral contracts take core's {@code io.twinbox.contract.StoreFixture}, which a JDBC fixture
 * implements as well (see {@code twinbox-jdbc}'s {@code JdbcFixture}).
 */
public interface StoreFixture extends AutoCloseable {

  /** A name for messages, e.g. {@code PostgreSQL}. */
  String name();

  /** The migrated database. Tests may run plain, portable SQL on it. */
  DataSource dataSource();

  /** The inbox store on {@link #dataSource()}. */
  InboxStore inboxStore();

  /** Drops the databases. */
  @Override
  void close();
}
