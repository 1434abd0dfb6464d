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
 * ({@code immediate}) and its data deleted at close; the server log stays. For the disk-full row
 * (B16) the cluster lives on a {@link SmallDisk} of {@value #DISK_MB} MB with a small WAL budget.
 */
final class PrivatePostgresStore implements ProducerStore {
  private static final String DATABASE = "faults";
  /** Room for a 100,000-event E1 (tables, indexes, WAL within max_wal_size) with some to spare. */
  static final int DISK_MB = 768;

  private final PrivatePostgresCluster cluster;
  private final HikariDataSource pool;
  private final SmallDisk disk;

  private PrivatePostgresStore(PrivatePostgresCluster cluster, HikariDataSource pool, SmallDisk disk) {
    this.cluster = cluster;
    this.pool = pool;
    this.disk = disk;
  }

  /**
   * initdb, start, create the database; the cluster lives in {@code <dir>/pg}.
   *
   * @param logical {@code wal_level=logical} for the WAL relay's rows (FAULTS G)
   * @param smallDisk on a {@link SmallDisk} of its own, under {@code <dir>/disk} (B16)
   */
  static PrivatePostgresStore start(Path dir, boolean logical, boolean smallDisk) {
    return start(dir, logical, smallDisk, null);
  }

  /**
   * As {@link #start(Path, boolean, boolean)}, with the server's {@code lc_messages} set to {@code
   * locale} (null: the default), which the machine must have (e.g. {@code localedef -i de_DE -f
   * UTF-8 de_DE.UTF-8}).
   */
  static PrivatePostgresStore start(Path dir, boolean logical, boolean smallDisk, String locale) {
    PrivatePostgresCluster.Builder builder = PrivatePostgresCluster.builder();
    if (locale != null) {
      builder.setting("lc_messages", locale);
    }
    if (logical) {
      builder.setting("wal_level", "logical").setting("max_replication_slots", "6")
          .setting("max_wal_senders", "6");
    }
    SmallDisk disk = smallDisk ? SmallDisk.mount(dir.resolve("disk"), DISK_MB) : null;
    if (disk != null) {
      builder.setting("max_wal_size", "128MB").setting("min_wal_size", "32MB");
    }
    PrivatePostgresCluster cluster;
    try {
      cluster = builder
        .home(disk == null ? dir.resolve("pg") : disk.root().resolve("pg"))
        .setting("fsync", "on")
        .setting("max_connections", "60")
        .setting("shared_buffers", "32MB")
        .stopMode("immediate")
        .start();
    } catch (RuntimeException e) {
      if (disk != null) {
        disk.close();
      }
      throw e;
    }
    try {
      cluster.createDatabase(DATABASE);
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(cluster.jdbcUrl(DATABASE));
      hc.setUsername(PrivatePostgresCluster.USER);
      hc.setMaximumPoolSize(8);
      hc.setMinimumIdle(1);
      hc.setConnectionTimeout(30_000);
      hc.setPoolName("faults-private-pg");
      return new PrivatePostgresStore(cluster, new HikariDataSource(hc), disk);
    } catch (RuntimeException e) {
      cluster.close();
      if (disk != null) {
        disk.close();
      }
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
  public String fillDisk(long holdMillis) {
    if (disk == null) {
      throw new UnsupportedOperationException("this private cluster has no disk of its own to fill");
    }
    long filled = disk.fill();
    try {
      ChildJvm.sleep(holdMillis);
    } finally {
      disk.free();
    }
    String what = "disk full (" + filled / (1024 * 1024) + " MB taken) for " + holdMillis + "ms";
    if (cluster.isRunning()) {
      return what + "; the server kept running";
    }
    return what + "; the server had stopped, restarted (crash recovery) in " + restart() + "ms";
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
    if (disk != null) {
      disk.close();
    }
  }
}
