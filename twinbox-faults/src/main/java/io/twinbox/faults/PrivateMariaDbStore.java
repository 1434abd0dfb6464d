package io.twinbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.PrivateMariaDb;
import java.nio.file.Path;
import javax.sql.DataSource;

/**
 * A MariaDB server of this run only (FAULTS B9 and E1 with {@code -Dfaults.store=mariadb}), so that
 * the nemesis may {@code kill -9} it and start it again without touching the machine's shared
 * server on 3306: the testkit's {@link PrivateMariaDb} with its data under the run's folder, a free
 * loopback port, InnoDB flushing its redo log at every commit. Started once per run, killed and its
 * data deleted at close; the server log stays. Schema and relay sessions: {@link MariaDbSchema}.
 */
final class PrivateMariaDbStore extends MariaDbSchema {
  private static final String DATABASE = "faults";

  private final PrivateMariaDb server;
  private final HikariDataSource pool;

  private PrivateMariaDbStore(PrivateMariaDb server, HikariDataSource pool) {
    this.server = server;
    this.pool = pool;
  }

  /** Creates the server in {@code <dir>/mariadb}, starts it and creates the database. */
  static PrivateMariaDbStore start(Path dir) {
    PrivateMariaDb server = PrivateMariaDb.start(dir.resolve("mariadb"));
    try {
      server.createDatabase(DATABASE);
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(server.jdbcUrl(DATABASE));
      hc.setUsername(PrivateMariaDb.USER);
      hc.setPassword("");
      hc.setMaximumPoolSize(8);
      hc.setMinimumIdle(1);
      hc.setConnectionTimeout(30_000);
      hc.setPoolName("faults-private-mariadb");
      return new PrivateMariaDbStore(server, new HikariDataSource(hc));
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  @Override
  String databaseName() {
    return DATABASE;
  }

  @Override
  public void kill() {
    server.kill();
  }

  @Override
  public long restart() {
    long t0 = System.nanoTime();
    server.restart();
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Override
  public boolean isRunning() {
    return server.isRunning();
  }

  @Override
  public DataSource dataSource() {
    return pool;
  }

  @Override
  public String jdbcUrl() {
    return server.jdbcUrl(DATABASE);
  }

  @Override
  public String user() {
    return PrivateMariaDb.USER;
  }

  @Override
  public String password() {
    return "";
  }

  /** Kills the server and deletes its data; the server log stays. */
  @Override
  public void close() {
    pool.close();
    server.close();
  }
}
