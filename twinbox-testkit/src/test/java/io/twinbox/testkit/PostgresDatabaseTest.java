package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.twinbox.testkit.internal.PostgresServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresDatabaseTest {

  @Test
  void createsAFreshDatabaseAndDropsItOnClose() throws SQLException {
    PostgresDatabase db = PostgresDatabase.create();
    Connection leftOpen = null;
    try {
      assertThat(db.name()).matches("twinbox_[0-9a-f]{16}");
      assertThat(db.jdbcUrl()).endsWith("/" + db.name()).startsWith("jdbc:postgresql://");
      assertThat(exists(db.name())).isTrue();
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select 1, current_database(), current_user")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
        assertThat(rs.getString(2)).isEqualTo(db.name());
        assertThat(rs.getString(3)).isEqualTo(db.user());
      }
      // A session outside the pool, left open, must not block the drop: WITH (FORCE) ends it.
      leftOpen = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
      assertThat(leftOpen.isValid(2)).isTrue();
    } finally {
      db.close();
    }
    assertThat(exists(db.name())).isFalse();
    assertThat(leftOpen.isValid(2)).isFalse();
    leftOpen.close();
    db.close(); // idempotent
  }

  @Test
  void twoDatabasesAreIsolated() throws SQLException {
    try (PostgresDatabase a = PostgresDatabase.create();
        PostgresDatabase b = PostgresDatabase.create()) {
      assertThat(a.name()).isNotEqualTo(b.name());
      try (Connection c = a.dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("create table only_in_a (id int)");
      }
      try (Connection c = b.dataSource().getConnection();
          ResultSet rs = c.getMetaData().getTables(null, "public", "only_in_a", null)) {
        assertThat(rs.next()).isFalse();
      }
    }
  }

  @Test
  void createsTheDatabaseOnTheServerItIsGiven() throws SQLException {
    PostgresServer local = PostgresServer.get();
    PostgresDatabase db = PostgresDatabase.createOn(local.host(), local.port(), local.user(), local.password());
    try {
      assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://" + local.host() + ":" + local.port() + "/" + db.name());
      assertThat(exists(db.name())).isTrue();
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select current_database()")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo(db.name());
      }
    } finally {
      db.close();
    }
    assertThat(exists(db.name())).isFalse();
  }

  @Test
  void createOnANonAnsweringServerFailsNamingItWithoutAnEmbeddedFallback() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Throwable thrown = catchThrowable(() -> PostgresDatabase.createOn("127.0.0.1", closed, "postgres", ""));
    assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("127.0.0.1:" + closed);
  }

  private static boolean exists(String name) throws SQLException {
    try (Connection c = PostgresServer.get().connectAdmin();
        PreparedStatement ps = c.prepareStatement("select 1 from pg_database where datname = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
