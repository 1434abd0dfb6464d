package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateMariaDbTest {

  @BeforeAll
  static void binaries() {
    LocalServers.requireInstalled("MariaDB server", PrivateMariaDb.SERVER, "apt-get install mariadb-server");
    LocalServers.requireInstalled("mariadb-install-db", PrivateMariaDb.INSTALL_DB, "apt-get install mariadb-server");
  }

  @Test
  void committedRowsSurviveKillNineAndRestartOnTheSamePort() throws SQLException {
    Path home;
    try (PrivateMariaDb db = PrivateMariaDb.start()) {
      home = db.home();
      int port = db.port();
      assertThat(port).isNotEqualTo(3306);
      assertThat(db.isRunning()).isTrue();
      assertThat(db.jdbcUrl("kept")).isEqualTo("jdbc:mariadb://127.0.0.1:" + port + "/kept");
      db.createDatabase("kept");
      try (Connection c = connect(db); Statement st = c.createStatement()) {
        st.execute("CREATE TABLE t (id INT PRIMARY KEY) ENGINE = InnoDB");
        st.execute("INSERT INTO t SELECT seq FROM seq_1_to_1000");
      }
      Connection open = connect(db);
      open.setAutoCommit(false);
      try (Statement st = open.createStatement()) {
        st.execute("INSERT INTO t VALUES (5000)"); // never committed
      }
      long firstPid = db.pid();

      db.kill();
      assertThat(db.isRunning()).isFalse();
      assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      assertThatThrownBy(open::commit).isInstanceOf(SQLException.class);
      open.close();

      db.restart();
      assertThat(db.isRunning()).isTrue();
      assertThat(db.port()).isEqualTo(port);
      assertThat(db.pid()).isNotEqualTo(firstPid);
      try (Connection c = connect(db); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*), sum(id) FROM t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(1000);
        assertThat(rs.getLong(2)).isEqualTo(500_500);
      }
    }
    assertThat(home).doesNotExist();
  }

  @Test
  void givenHomeKeepsTheLogAndLosesTheData(@TempDir Path tmp) {
    PrivateMariaDb db = PrivateMariaDb.start(tmp.resolve("mdb"));
    assertThat(db.home()).isEqualTo(tmp.resolve("mdb").toAbsolutePath());
    assertThat(db.dataDir()).isDirectory();
    db.close();
    assertThat(db.isRunning()).isFalse();
    assertThat(db.dataDir()).doesNotExist();
    assertThat(db.logFile()).exists();
    db.close(); // idempotent
  }

  private static Connection connect(PrivateMariaDb db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl("kept"), PrivateMariaDb.USER, "");
  }
}
