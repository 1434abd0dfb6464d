package io.twinbox.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A private PostgreSQL cluster with {@code wal_level=logical} for one test class (the shared
 * server on 5432 is never reconfigured), with pools on its databases. {@link #close()} drops every
 * Twinbox slot first, then stops the cluster and deletes it, so no slot outlives a test.
 */
final class LogicalCluster implements AutoCloseable {
  private final PrivatePostgresCluster cluster;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private LogicalCluster(PrivatePostgresCluster cluster) {
    this.cluster = cluster;
  }

  static LogicalCluster start(Map<String, String> settings) {
    LocalServers.requireInstalled("PostgreSQL server binaries",
        PrivatePostgresCluster.binaries().orElse(java.nio.file.Path.of("/usr/lib/postgresql")),
        "Debian package postgresql-15");
    PrivatePostgresCluster.Builder b = PrivatePostgresCluster.builder()
        .setting("wal_level", "logical")
        .setting("max_connections", "40")
        .setting("shared_buffers", "32MB")
        .setting("fsync", "off");
    b.settings(settings);
    return new LogicalCluster(b.start());
  }

  PrivatePostgresCluster cluster() {
    return cluster;
  }

  /** A new database and a pool on it, as {@code user} (superuser {@code postgres} by default). */
  HikariDataSource database(String name) {
    cluster.createDatabase(name);
    return pool(name, PrivatePostgresCluster.USER);
  }

  HikariDataSource pool(String database, String user) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(cluster.jdbcUrl(database));
    hc.setUsername(user);
    hc.setMaximumPoolSize(6);
    hc.setMinimumIdle(0);
    hc.setPoolName("logical-" + database + "-" + user);
    HikariDataSource ds = new HikariDataSource(hc);
    pools.add(ds);
    return ds;
  }

  /** Runs statements as the superuser on {@code database}. */
  void exec(String database, String... sql) {
    try (Connection c = DriverManager.getConnection(cluster.jdbcUrl(database), PrivatePostgresCluster.USER, "");
        Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run " + List.of(sql), e);
    }
  }

  /** The replication slots of the whole cluster, by name. */
  List<String> slotNames() {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(cluster.jdbcUrl("postgres"), PrivatePostgresCluster.USER, "");
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT slot_name FROM pg_replication_slots ORDER BY 1")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return names;
  }

  @Override
  public void close() {
    try {
      for (int round = 0; round < 50 && !slotNames().isEmpty(); round++) {
        for (String slot : slotNames()) {
          try {
            exec("postgres", "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                + " WHERE slot_name = '" + slot + "' AND active", "SELECT pg_drop_replication_slot('" + slot + "')");
          } catch (RuntimeException stillActive) {
            Thread.sleep(100); // its walsender is still exiting
          }
        }
      }
    } catch (RuntimeException | InterruptedException e) {
      System.err.println("could not drop the slots of " + cluster + ": " + e);
    } finally {
      pools.forEach(HikariDataSource::close);
      cluster.close();
    }
  }
}
