package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * R24 "a unique constraint on the inbox id": the database itself refuses a second record of one
 * (consumer, message id) — even from a writer that bypasses Twinbox — while another consumer may
 * record the same id. The inbox's at-most-once rests on this constraint, not on a read before the
 * write.
 */
class InboxIdConstraintTest {
  static Stream<String> databases() {
    return Stream.of("PostgreSQL", "MariaDB");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void theDatabaseRefusesASecondRecordOfOneConsumersMessageId(String database) throws Exception {
    try (JdbcFixture fx = database.equals("PostgreSQL") ? JdbcFixture.postgres() : JdbcFixture.mariadb()) {
      insert(fx, "billing", "m-1");
      assertThatThrownBy(() -> insert(fx, "billing", "m-1")).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).as(e.getMessage()).startsWith("23"));
      insert(fx, "shipping", "m-1");
      assertThat(fx.inboxIds()).containsExactlyInAnyOrder("m-1", "m-1");
    }
  }

  private static void insert(JdbcFixture fx, String consumer, String messageId) throws SQLException {
    try (Connection c = fx.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES (?, ?, ?)")) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.setString(3, "0".repeat(64));
      ps.executeUpdate();
    }
  }
}
