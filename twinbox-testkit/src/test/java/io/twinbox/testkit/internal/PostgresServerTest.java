package io.twinbox.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresServerTest {

  @Test
  void fallsBackToAnEmbeddedServerWhenNothingAnswers() throws SQLException {
    int closedPort = FreePorts.pick(1)[0];
    PostgresServer server = PostgresServer.resolve("127.0.0.1", closedPort);
    try {
      assertThat(server.description()).startsWith("EMBEDDED");
      assertThat(server.port()).isNotEqualTo(closedPort);
      try (Connection c = server.connectAdmin();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select current_setting('server_version_num')::int")) {
        assertThat(rs.next()).isTrue();
        // DROP DATABASE ... WITH (FORCE) needs PostgreSQL 13 or later.
        assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(130000);
      }
    } finally {
      PostgresServer.shutdown();
    }
  }
}
