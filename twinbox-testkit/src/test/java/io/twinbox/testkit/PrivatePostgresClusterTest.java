package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivatePostgresClusterTest {

  @BeforeAll
  static void binaries() {
    LocalServers.requireInstalled("PostgreSQL server binaries", PrivatePostgresCluster.INSTALL_ROOT,
        "install the Debian package postgresql-<version>");
  }

  @Test
  void settingHoldsAndCommittedDataSurvivesKillNineAndRestart(@TempDir Path tmp) throws SQLException, IOException {
    // The postgres OS user must reach the home; JUnit makes its temporary folder rwx------.
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path home = tmp.resolve("pg");
    PrivatePostgresCluster pg = PrivatePostgresCluster.builder()
        .home(home)
        .settings(Map.of("wal_level", "logical", "max_replication_slots", "4"))
        .stopMode("immediate")
        .start();
    try {
      assertThat(pg.isRunning()).isTrue();
      assertThat(pg.home()).isEqualTo(home.toAbsolutePath());
      assertThat(pg.jdbcUrl("kept")).isEqualTo("jdbc:postgresql://127.0.0.1:" + pg.port() + "/kept");
      pg.createDatabase("kept");
      try (Connection c = connect(pg, "kept"); Statement st = c.createStatement()) {
        assertThat(show(st, "wal_level")).isEqualTo("logical");
        assertThat(show(st, "max_replication_slots")).isEqualTo("4");
        assertThat(show(st, "port")).isEqualTo(Integer.toString(pg.port()));
        assertThat(show(st, "unix_socket_directories")).isEmpty();
        assertThat(show(st, "fsync")).isEqualTo("on");
        st.execute("create table t (id int primary key)");
        st.execute("insert into t select generate_series(1, 1000)");
      }

      Connection doomed = connect(pg, "kept");
      pg.kill();
      assertThat(pg.isRunning()).isFalse();
      assertThat(doomed.isValid(2)).isFalse();
      doomed.close();

      pg.restart();
      assertThat(pg.isRunning()).isTrue();
      try (Connection c = connect(pg, "kept"); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select count(*), sum(id) from t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(1000);
        assertThat(rs.getLong(2)).isEqualTo(500_500);
        assertThat(show(st, "wal_level")).isEqualTo("logical");
      }
    } finally {
      pg.close();
    }
    assertThat(pg.isRunning()).isFalse();
    assertThat(pg.dataDir()).doesNotExist();
    assertThat(pg.serverLog()).exists(); // a given home keeps its log
    pg.close(); // idempotent
  }

  @Test
  void temporaryFolderIsDeletedWholeAtClose() throws SQLException {
    Path home;
    try (PrivatePostgresCluster pg = PrivatePostgresCluster.builder().start()) {
      home = pg.home();
      assertThat(Files.isDirectory(pg.dataDir())).isTrue();
      try (Connection c = connect(pg, "postgres"); Statement st = c.createStatement()) {
        assertThat(show(st, "wal_level")).isEqualTo("replica");
      }
    }
    assertThat(home).doesNotExist();
  }

  @Test
  void refusesSettingsItOwnsAndBadNames() {
    assertThatThrownBy(() -> PrivatePostgresCluster.builder().setting("port", "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
    assertThatThrownBy(() -> PrivatePostgresCluster.builder().setting("x; drop", "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setting name");
    assertThatThrownBy(() -> PrivatePostgresCluster.builder().stopMode("hard"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stopMode");
  }

  private static Connection connect(PrivatePostgresCluster pg, String database) throws SQLException {
    return DriverManager.getConnection(pg.jdbcUrl(database), PrivatePostgresCluster.USER, "");
  }

  private static String show(Statement st, String setting) throws SQLException {
    try (ResultSet rs = st.executeQuery("SHOW " + setting)) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
