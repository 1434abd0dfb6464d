package io.twinbox.jdbc;

import io.twinbox.CompletionMode;
import io.twinbox.spi.ParkedRow;
import io.twinbox.jdbc.internal.AdminSql;
import io.twinbox.jdbc.internal.DeadLetterSql;
import io.twinbox.jdbc.internal.InboxOrderSql;
import io.twinbox.jdbc.internal.InboxSql;
import io.twinbox.jdbc.internal.NodeSql;
import io.twinbox.jdbc.internal.ParkedSql;
import io.twinbox.jdbc.internal.PartitionSql;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Everything that differs between databases: the SQL text, how parameters are bound, and how
 * errors are recognised (by SQLSTATE or vendor code, never by message text). A dialect runs
 * statements on the connection it is given; {@link JdbcStore} owns connections and transactions.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface SqlDialect {

  /** The folder under {@code db/} that holds this dialect's schema scripts. */
  String name();

  /** Schema scripts in the order they apply, relative to {@code db/<name>/}. */
  List<String> migrations();

  /**
   * The opt-in time-partitioned outbox: its schema scripts (relative to {@code db/<name>/}, applied
   * after {@link #migrations()}) and statements. Empty when this database has none; then {@link
   * #partitionedOutboxUnsupported()} says why (see docs/partitioned-outbox.md).
   */
  default Optional<PartitionedOutbox> partitionedOutbox() {
    return Optional.empty();
  }

  /** Why this database has no partitioned outbox; empty when it has one. */
  default Optional<String> partitionedOutboxUnsupported() {
    return partitionedOutbox().isPresent() ? Optional.empty()
        : Optional.of(name() + " has no partitioned outbox (see docs/partitioned-outbox.md)");
  }

  /**
   * What a dialect with a partitioned outbox supplies.
   *
   * @param scripts the schema scripts that convert the outbox, relative to {@code db/<name>/}; the first
   *     creates the layout table only (the layout is set between it and the rest)
   * @param sql its statements (is it partitioned, create ahead, drop old partitions)
   */
  record PartitionedOutbox(List<String> scripts, PartitionSql sql) {}

  /**
   * Splits a schema script into the statements to execute one by one. Default: the whole script
   * as one (PostgreSQL's driver splits it itself and understands {@code $$} bodies).
   */
  default List<String> statements(String script) {
    return List.of(script);
  }

  /** Throws a clear {@code IllegalStateException} if the server is older than supported. */
  default void checkVersion(Connection c) throws SQLException {}

  /**
   * Settings for each of the relay's own short transactions (leases, claims, completions), run as
   * their first statement. Default: none.
   */
  default void prepareRelayTransaction(Connection c) throws SQLException {}

  /**
   * Undoes session settings of {@link #prepareRelayTransaction} that outlive the transaction, run on
   * the same connection after its commit or rollback, before it returns to the pool (which the
   * application may share). Default: nothing to undo.
   */
  default void finishRelayTransaction(Connection c) throws SQLException {}

  /** Takes a lock that serialises concurrent migrations. */
  void lockForMigration(Connection c) throws SQLException;

  /**
   * Releases the migration lock where it outlives the transaction (a session-level lock on a
   * pooled connection would otherwise stay with the connection). Default: nothing to do.
   */
  default void unlockAfterMigration(Connection c) throws SQLException {}

  /**
   * The statements of a session-level lock (scoped to this database and schema), for {@link
   * io.twinbox.spi.ExclusiveLock}: each a one-value query whose one parameter is the lock's name.
   *
   * @param tryLock takes the lock without waiting; answers 1 when taken
   * @param release releases a lock {@code tryLock} took on the same connection
   */
  record ExclusiveLockSql(String tryLock, String release) {}

  /** This database's {@link ExclusiveLockSql}; run in auto-commit on a connection that holds the lock. */
  ExclusiveLockSql exclusiveLockSql();

  /** Throws {@code SchemaNotMigratedException} unless the schema is current. */
  void verifySchema(Connection c, int partitions) throws SQLException;

  /** Inserts the events in the caller's transaction, taking each aggregate's next sequence. */
  void append(Connection c, List<PreparedEvent> events) throws SQLException;

  /** Upserts the node's heartbeat and returns the number of nodes alive within {@code ttl}. */
  int heartbeat(Connection c, String nodeId, Duration ttl) throws SQLException;

  /**
   * Registers {@code instance} as the running instance of {@code nodeId} unless another instance
   * heartbeated within {@code ttl}; returns empty when registered, else that instance's last
   * heartbeat (see {@code OutboxStore.register}).
   */
  Optional<Instant> registerNode(Connection c, String nodeId, String instance, Duration ttl) throws SQLException;

  /**
   * As {@link #heartbeat(Connection, String, Duration)} for a registered instance.
   *
   * @throws io.twinbox.NodeIdInUseException when another instance holds the node id
   */
  int heartbeat(Connection c, String nodeId, String instance, Duration ttl) throws SQLException;

  /** Deletes the node's row if {@code instance} still holds it. */
  default void leave(Connection c, String nodeId, String instance) throws SQLException {
    NodeSql.leave(c, nodeId, instance);
  }

  List<PartitionLease> acquire(Connection c, String nodeId, int max, Duration ttl) throws SQLException;

  List<PartitionLease> renew(Connection c, String nodeId, Collection<PartitionLease> leases, Duration ttl)
      throws SQLException;

  void release(Connection c, String nodeId, Collection<PartitionLease> leases) throws SQLException;

  default void leave(Connection c, String nodeId) throws SQLException {
    NodeSql.leave(c, nodeId);
  }

  /**
   * Runs the claim query; called inside a transaction that {@link #prepareClaim} set up. Decodes
   * row by row: a row that breaks the rules comes back as an {@code UndecodableRow}, in its place.
   */
  List<ClaimedRow> claim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException;

  /**
   * As {@link #claim}, on an outbox partitioned by time ({@link JdbcStore#outboxPartitioned()}):
   * the same rows, by a statement whose cost does not grow with the number of partitions. The
   * default runs {@link #claim}, for a dialect whose claim does not depend on the layout.
   */
  default List<ClaimedRow> claimPartitioned(Connection c, String nodeId, Collection<PartitionLease> leases,
      int limit) throws SQLException {
    return claim(c, nodeId, leases, limit);
  }

  /** Session settings for the claim's transaction (e.g. keep the planner on the index). */
  void prepareClaim(Connection c) throws SQLException;

  /** Locks the still-held leases and completes rows of those partitions only. */
  Completion complete(Connection c, String nodeId, Collection<PartitionLease> leases,
      List<OutboxMessage> published, List<FailedPublish> failed, CompletionMode mode) throws SQLException;

  /** Inserts inbox records, skipping existing keys; returns the ids inserted. */
  List<String> inboxRecord(Connection c, String consumer, Map<String, String> hashes) throws SQLException;

  /** Reads the payload hashes of recorded ids. */
  Map<String, String> inboxHashes(Connection c, String consumer, List<String> ids) throws SQLException;

  /** Parks a message (its row fitted to the columns) and records it in the inbox (if not yet there). */
  default void inboxPark(Connection c, String consumer, ParkedRow row) throws SQLException {
    inbox().park(c, consumer, row);
  }

  /**
   * Parks the minimal row ({@link ParkedRow#minimal}: id, hash, reason, attempts) and records it in
   * the inbox: what is stored when the database refused the full row.
   */
  default void inboxParkMinimal(Connection c, String consumer, ParkedRow row) throws SQLException {
    inbox().parkMinimal(c, consumer, row);
  }

  /**
   * The largest payload, in UTF-8 bytes, that {@link #inboxPark} may bind: a statement beyond what
   * the server takes in one packet breaks the connection, so the payload of such a message is left
   * out of its parked row.
   */
  long inboxMaxParkedPayloadBytes(Connection c) throws SQLException;

  /**
   * Throws (SQLSTATE 25P02) when the transaction on {@code c} is aborted and its COMMIT would be a
   * silent rollback. Default: a failed statement never aborts the transaction (InnoDB), nothing to
   * check.
   */
  default void inboxRequireCommittable(Connection c) throws SQLException {}

  /** Increments a message's attempt counter and returns the new value. */
  int inboxRecordAttempt(Connection c, String consumer, String messageId, String error) throws SQLException;

  default void inboxClearAttempts(Connection c, String consumer, String messageId) throws SQLException {
    inbox().clearAttempts(c, consumer, messageId);
  }

  default void inboxClearAttempts(Connection c, String consumer, List<String> messageIds) throws SQLException {
    inbox().clearAttempts(c, consumer, messageIds);
  }

  /** The attempt counters of these messages; one without a counter is absent. */
  default Map<String, Integer> inboxAttempts(Connection c, String consumer, List<String> ids) throws SQLException {
    return inbox().attempts(c, consumer, ids);
  }

  /** Deletes up to {@code limit} inbox records older than {@code age}. */
  default int inboxPurge(Connection c, Duration age, int limit) throws SQLException {
    return inbox().purge(c, age, limit);
  }

  /**
   * The statements both databases run alike, each built from this dialect's SQL fragments: the
   * execution, binding and row mapping live once in these classes, a dialect supplies only text.
   *
   * @param deadLetters the dead-letter loop's (claim pending dead letters, mark them sent)
   * @param inbox the inbox's (park, clear attempts, purge)
   * @param admin the operator's (status, listings, retry, skip, purge)
   * @param parked the parked messages' (listings, replay requests, discards, audit, the replay's own)
   * @param inboxOrder the inbox ordering guard's (last sequences, held messages)
   */
  record Shared(DeadLetterSql deadLetters, InboxSql inbox, AdminSql admin, ParkedSql parked, InboxOrderSql inboxOrder) {}

  /** This dialect's {@link Shared} statements. */
  Shared shared();

  default DeadLetterSql deadLetters() {
    return shared().deadLetters();
  }

  default InboxSql inbox() {
    return shared().inbox();
  }

  default AdminSql admin() {
    return shared().admin();
  }

  default ParkedSql parked() {
    return shared().parked();
  }

  default InboxOrderSql inboxOrder() {
    return shared().inboxOrder();
  }

  /** True for a transient conflict worth retrying (serialization failure, deadlock). */
  boolean isTransient(SQLException e);

  /** True for a unique-key violation on the outbox's message id. */
  boolean isDuplicateMessageId(SQLException e);

  /** True when the error says a Twinbox table does not exist. */
  boolean isMissingTable(SQLException e);

  /** True when committing events also signals listening relays (PostgreSQL's opt-in NOTIFY). */
  default boolean commitNotifications(Connection c) throws SQLException {
    return false;
  }

  /**
   * Turns the commit signal on or off for every writer of this database.
   *
   * @throws UnsupportedOperationException when the database has no such signal
   */
  default void setCommitNotifications(Connection c, boolean enabled) throws SQLException {
    throw new UnsupportedOperationException(name() + " has no commit notifications; the relay polls");
  }

  /**
   * Starts a listener that runs {@code callback} when a transaction that wrote events commits.
   * Dialects without such a signal return a no-op.
   */
  default AutoCloseable listen(DataSource dataSource, Runnable callback) {
    return () -> {};
  }
}
