package io.twinbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.PrivatePostgresCluster;
import io.twinbox.testkit.contract.TcpProxy;
import java.nio.file.Path;
import javax.sql.DataSource;

/**
 * A PostgreSQL cluster of this run only (FAULTS B9), so that the nemesis may {@code kill -9} it and
 * start it again without touching the machine's shared server on 5432: the testkit's {@link
 * PrivatePostgresCluster} with data under the run's folder, a free loopback port, no Unix socket,
 * {@code fsync=on} ({@code synchronous_commit=on}, the defaults). Started once per run, stopped
 * ({@code immediate}) and its data deleted at close; the server log stays.
 */
final class PrivatePostgresStore implements ProducerStore {
  private static final String DATABASE = "faults";

  private final PrivatePostgresCluster cluster;
  private final HikariDataSource pool;

  private PrivatePostgresStore(PrivatePostgresCluster cluster, HikariDataSource pool) {
    this.cluster = cluster;
    this.pool = pool;
  }

  /**
   * initdb, start, create the database; the cluster lives in {@code <dir>/pg}.
   *
   * @param logical {@code wal_level=logical} for the WAL relay's rows (FAULTS G)
   */
  static PrivatePostgresStore start(Path dir, boolean logical) {
    PrivatePostgresCluster.Builder builder = PrivatePostgresCluster.builder();
    if (logical) {
      builder.setting("wal_level", "logical").setting("max_replication_slots", "6")
          .setting("max_wal_senders", "6");
    }
    PrivatePostgresCluster cluster = builder
        .home(dir.resolve("pg"))
        .setting("fsync", "on")
        .setting("max_connections", "60")
        .setting("shared_buffers", "32MB")
        .stopMode("immediate")
        .start();
    try {
      cluster.createDatabase(DATABASE);
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(cluster.jdbcUrl(DATABASE));
      hc.setUsername(PrivatePostgresCluster.USER);
      hc.setMaximumPoolSize(8);
      hc.setMinimumIdle(1);
      hc.setConnectionTimeout(30_000);
      hc.setPoolName("faults-private-pg");
      return new PrivatePostgresStore(cluster, new HikariDataSource(hc));
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  @Override
  public void kill() {
    cluster.kill();
  }

  @Override
  public long restart() {
    long t0 = System.nanoTime();
    cluster.restart();
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Override
  public boolean isRunning() {
    return cluster.isRunning();
  }

  @Override
  public String kind() {
    return POSTGRESQL;
  }

  @Override
  public DataSource dataSource() {
    return pool;
  }

  @Override
  public String jdbcUrl() {
    return cluster.jdbcUrl(DATABASE);
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  public int terminateRelaySessions(TcpProxy proxy) {
    return PgDdl.terminateRelaySessions(pool);
  }

  /** Stops the cluster (immediate) and deletes its data; the server log stays. */
  @Override
  public void close() {
    pool.close();
    cluster.close();
  }
}
