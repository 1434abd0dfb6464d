package io.twinbox.spring.internal;

import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds the inbox's connection to the application's {@link DataSource} while the user's handler
 * runs, so that {@code JdbcTemplate}, {@code JdbcClient} and {@code TransactionalOutbox} on that
 * DataSource work in the inbox's transaction, exactly as in a {@code @Transactional} method. The
 * connection is not closed or committed here: the inbox owns its transaction.
 */
public final class ConnectionBoundInboxHandler implements InboxHandler {
  private final DataSource dataSource;
  private final InboxHandler delegate;

  public ConnectionBoundInboxHandler(DataSource dataSource, InboxHandler delegate) {
    this.dataSource = dataSource;
    this.delegate = delegate;
  }

  @Override
  public void handle(Connection connection, InboxMessage message) throws Exception {
    if (TransactionSynchronizationManager.hasResource(dataSource)) {
      delegate.handle(connection, message);   // already bound: leave the outer binding alone
      return;
    }
    TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(connection, true));
    try {
      delegate.handle(connection, message);
    } finally {
      TransactionSynchronizationManager.unbindResource(dataSource);
    }
  }
}
