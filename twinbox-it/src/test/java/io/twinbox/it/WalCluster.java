package io.twinbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A private PostgreSQL cluster with {@code wal_level=logical} for the WAL relay's scenarios, started
 * once per test class (the shared server on 5432 is never reconfigured), with fresh migrated
 * databases on it and a few reads of {@code pg_replication_slots}. {@link #close()} drops every
 * slot, then stops the cluster and deletes its data: no slot outlives a test class. A short {@code
 * wal_sender_timeout} (2 s) makes a relay that stopped answering keep-alives lose its connection
 * within the scenarios' time.
 */
final class WalCluster implements AutoCloseable {
  private final PrivatePostgresCluster cluster;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private WalCluster(PrivatePostgresCluster cluster) {
    this.cluster = cluster;
  }

  static WalCluster start() {
    LocalServers.requireInstalled("PostgreSQL server binaries",
        PrivatePostgresCluster.binaries().orElse(Path.of("/usr/lib/postgresql")), "Debian package postgresql-15");
    return new WalCluster(PrivatePostgresCluster.builder()
        .setting("wal_level", "logical")
        .setting("wal_sender_timeout", "2s")
        .setting("max_connections", "60")
        .setting("shared_buffers", "64MB")
        .setting("fsync", "off")
        .settings(Map.of("max_replication_slots", "10", "max_wal_senders", "10"))
        .start());
  }

  /** A new database with the Twinbox schema and the writers' business table. */
  TestDb database(String name) throws SQLException {
    cluster.createDatabase(name);
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(cluster.jdbcUrl(name));
    hc.setUsername(PrivatePostgresCluster.USER);
    hc.setMaximumPoolSize(12);
    hc.setMinimumIdle(0);
    hc.setPoolName("wal-" + name);
    HikariDataSource ds = new HikariDataSource(hc);
    pools.add(ds);
    TestDb.store(ds).migrate();
    Workload.createBusinessTable(ds);
    return TestDb.of(() -> {}, ds, cluster.jdbcUrl(name), PrivatePostgresCluster.USER, "");
  }

  /** One row of {@code pg_replication_slots}, or an empty map. */
  Map<String, Object> slot(TestDb db, String name) {
    List<Map<String, Object>> rows = Db.rows(db.dataSource(),
        "SELECT active, COALESCE(active_pid, 0) AS pid,"
            + " (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint AS lag,"
            + " (pg_current_wal_lsn() - restart_lsn)::bigint AS retained,"
            + " (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint AS confirmed"
            + " FROM pg_replication_slots WHERE slot_name = '" + name + "'");
    return rows.isEmpty() ? Map.of() : rows.get(0);
  }

  /** The slot's {@code wal_status} ({@code reserved}, {@code extended}, {@code unreserved}, {@code lost}), or null. */
  String walStatus(TestDb db, String name) {
    List<Map<String, Object>> rows = Db.rows(db.dataSource(),
        "SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + name + "'");
    return rows.isEmpty() ? null : (String) rows.get(0).get("wal_status");
  }

  /** The server process streaming the slot, or 0. */
  int activePid(TestDb db, String name) {
    Object pid = slot(db, name).get("pid");
    return pid == null ? 0 : ((Number) pid).intValue();
  }

  /**
   * The position the slot's walsender has sent (decoded) up to and the end of the WAL, in bytes;
   * {@code [0, end]} while no walsender streams the slot.
   */
  long[] sentAndEnd(TestDb db, String name) {
    List<Map<String, Object>> rows = Db.rows(db.dataSource(),
        "SELECT COALESCE((SELECT (r.sent_lsn - '0/0'::pg_lsn)::bigint FROM pg_stat_replication r"
            + " JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = '" + name + "'), 0) AS sent,"
            + " (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint AS wal_end");
    return new long[] {((Number) rows.get(0).get("sent")).longValue(), ((Number) rows.get(0).get("wal_end")).longValue()};
  }

  /** {@code kill -9} of the server and all its processes (FAULTS B9); see {@link PrivatePostgresCluster#kill()}. */
  void kill() {
    cluster.kill();
  }

  /** Starts the server again after {@link #kill()}: crash recovery, same port and settings. */
  void restart() {
    cluster.restart();
  }

  @Override
  public void close() {
    try (Connection c = DriverManager.getConnection(cluster.jdbcUrl("postgres"), PrivatePostgresCluster.USER, "");
        Statement st = c.createStatement()) {
      for (int round = 0; round < 50; round++) {
        st.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE active");
        try {
          st.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots");
          break;
        } catch (SQLException stillActive) {
          Thread.sleep(100); // a walsender is still exiting
        }
      }
    } catch (SQLException | InterruptedException e) {
      System.err.println("could not drop the slots of " + cluster + ": " + e);
    } finally {
      pools.forEach(HikariDataSource::close);
      cluster.close();
    }
  }
}
