package io.twinbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.spring.internal.ConnectionBoundInboxHandler;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * While a handler runs, JdbcTemplate and {@code @Transactional} code under a JDBC transaction
 * manager work on the inbox's connection: the inbox's rollback undoes them, its commit keeps them.
 */
class ConnectionBoundInboxHandlerTest {
  private static PostgresDatabase db;

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
    new JdbcTemplate(db.dataSource()).execute("CREATE TABLE effect (message_id varchar(64) PRIMARY KEY)");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void jdbcTemplateAndJdbcTransactionsJoinTheInboxTransaction() throws Exception {
    DataSource ds = db.dataSource();
    JdbcTemplate jdbc = new JdbcTemplate(ds);
    TransactionTemplate transactional = new TransactionTemplate(new DataSourceTransactionManager(ds));
    InboxHandler handler = new ConnectionBoundInboxHandler(ds, (connection, message) -> {
      jdbc.update("INSERT INTO effect VALUES (?)", message.id() + "-plain");
      transactional.executeWithoutResult(status -> jdbc.update("INSERT INTO effect VALUES (?)", message.id() + "-tx"));
    });

    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      handler.handle(c, message("rolled-back"));
      c.rollback();
      handler.handle(c, message("committed"));
      c.commit();
    }
    assertThat(TransactionSynchronizationManager.hasResource(ds)).isFalse();   // unbound afterwards
    assertThat(jdbc.queryForList("SELECT message_id FROM effect", String.class))
        .containsExactlyInAnyOrder("committed-plain", "committed-tx");
  }

  private static InboxMessage message(String id) {
    return new InboxMessage(id, "Tested", 1, "/test", "Test", "t-1", 1, "{}", Map.of(), null, null, null, null, null);
  }
}
