package io.twinbox.jdbc;

import io.twinbox.InboxMessage;
import io.twinbox.jdbc.internal.Transactions;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC {@link InboxStore}. Inbox records and parked messages are written on the caller's
 * connection, in the consumer's transaction; attempt counters and retention use short
 * transactions of their own on the given {@link DataSource}. The tables come with
 * {@link JdbcStore#migrate()} (script {@code V2__inbox.sql}).
 *
 * <p>Thread-safe.
 */
public final class JdbcInboxStore implements InboxStore {
  private final DataSource dataSource;
  private final SqlDialect dialect;

  private JdbcInboxStore(DataSource dataSource, SqlDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /** An inbox store on the same database and dialect as {@code store}. */
  public static JdbcInboxStore of(JdbcStore store) {
    return new JdbcInboxStore(store.dataSource(), store.dialect());
  }

  /** An inbox store on {@code dataSource}, dialect detected from the driver. */
  public static JdbcInboxStore of(DataSource dataSource) {
    return of(JdbcStore.builder(Objects.requireNonNull(dataSource, "dataSource cannot be null")).build());
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** True when an error is a transient conflict (serialization failure, deadlock) worth retrying. */
  public boolean isTransient(SQLException e) {
    return dialect.isTransient(e);
  }

  @Override
  public List<String> record(Connection c, String consumer, Map<String, String> hashes) {
    try {
      return dialect.inboxRecord(c, consumer, hashes);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "record inbox messages", e);
    }
  }

  @Override
  public Map<String, String> storedHashes(Connection c, String consumer, List<String> ids) {
    try {
      return dialect.inboxHashes(c, consumer, ids);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "read inbox records", e);
    }
  }

  @Override
  public void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason,
      int attempts) {
    try {
      dialect.inboxPark(c, consumer, message, payloadHash, reason, attempts);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "park a message", e);
    }
  }

  @Override
  public int recordAttempt(String consumer, String messageId, String error) {
    return Transactions.run(dataSource, dialect, "record a failed attempt",
        c -> dialect.inboxRecordAttempt(c, consumer, messageId, error));
  }

  @Override
  public void clearAttempts(Connection c, String consumer, String messageId) {
    try {
      dialect.inboxClearAttempts(c, consumer, messageId);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "clear attempts", e);
    }
  }

  @Override
  public int purgeProcessed(Duration age, int limit) {
    return Transactions.run(dataSource, dialect, "purge inbox records", c -> dialect.inboxPurge(c, age, limit));
  }
}
