package io.twinbox.faults;

import io.twinbox.testkit.MariaDbDatabase;
import javax.sql.DataSource;

/**
 * A fresh database on the shared MariaDB (testkit {@link MariaDbDatabase}), dropped at close; never
 * restarted (rows that restart the database get a {@link PrivateMariaDbStore}). Schema and relay
 * sessions: {@link MariaDbSchema}.
 */
final class MariaDbStore extends MariaDbSchema {
  private final MariaDbDatabase db = MariaDbDatabase.create();

  @Override
  String databaseName() {
    return db.name();
  }

  @Override
  public DataSource dataSource() {
    return db.dataSource();
  }

  @Override
  public String jdbcUrl() {
    return db.jdbcUrl();
  }

  @Override
  public String user() {
    return db.databaseUser();
  }

  @Override
  public String password() {
    return db.databasePassword();
  }

  @Override
  public void close() {
    db.close();
  }
}
