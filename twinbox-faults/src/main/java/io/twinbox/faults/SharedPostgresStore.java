package io.twinbox.faults;

import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TcpProxy;
import javax.sql.DataSource;

/** A fresh database on the shared PostgreSQL (testkit {@link PostgresDatabase}), dropped at close. */
final class SharedPostgresStore implements ProducerStore {
  private final PostgresDatabase db = PostgresDatabase.create();

  @Override
  public String kind() {
    return POSTGRESQL;
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
    return db.user();
  }

  @Override
  public String password() {
    return db.password();
  }

  @Override
  public int terminateRelaySessions(TcpProxy proxy) {
    return PgDdl.terminateRelaySessions(db.dataSource());
  }

  @Override
  public void close() {
    db.close();
  }
}
