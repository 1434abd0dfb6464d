package io.twinbox.faults;

import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TcpProxy;
import java.net.URI;
import java.util.UUID;
import javax.sql.DataSource;

/** A fresh database on the shared PostgreSQL (testkit {@link PostgresDatabase}), dropped at close. */
final class SharedPostgresStore implements ProducerStore {
  private final PostgresDatabase db = PostgresDatabase.create();
  private final URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));

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
  public String host() {
    return uri.getHost();
  }

  @Override
  public int port() {
    return uri.getPort();
  }

  @Override
  public String relayUrl(int proxyPort) {
    return "jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + db.name();
  }

  @Override
  public String ordersDdl() {
    return PgDdl.ORDERS;
  }

  @Override
  public String[] extraDdl() {
    return new String[] {PgDdl.COMMIT_BOMB};
  }

  @Override
  public Object id(UUID id) {
    return id;
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
