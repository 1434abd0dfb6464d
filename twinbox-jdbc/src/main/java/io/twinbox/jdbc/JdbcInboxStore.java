package io.twinbox.jdbc;

import io.twinbox.InboxMessage;
import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedState;
import io.twinbox.ParkedSummary;
import io.twinbox.spi.InboxAdminStore;
import io.twinbox.spi.ReplayStart;
import io.twinbox.spi.StoreRules;
import io.twinbox.spi.ParkedRow;
import io.twinbox.jdbc.internal.SessionLocks;
import io.twinbox.jdbc.internal.Transactions;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.ParkedLetter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC {@link InboxStore}. Inbox records and parked messages are written on the caller's
 * connection, in the consumer's transaction; attempt counters and retention use short
 * transactions of their own on the given {@link DataSource}. The tables come with
 * {@link JdbcStore#migrate()} (script {@code V2__inbox.sql}).
 *
 * <p>It is also the {@link InboxAdminStore} of the parked messages (schema PostgreSQL V7, MariaDB
 * V6): operators' listings, replay requests and discards, each in a short transaction with its
 * audit record; and the consumer's side of a replay ({@link #startReplay}, {@link #finishReplay}).
 *
 * <p>Thread-safe.
 */
public final class JdbcInboxStore implements InboxStore, InboxAdminStore, ExclusiveLock {
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

  /** The database's session-level lock, as {@link JdbcStore#tryLock(String)}. */
  @Override
  public Optional<Held> tryLock(String name) {
    return new SessionLocks(dataSource, dialect).tryLock(Objects.requireNonNull(name, "name cannot be null"));
  }

  /** True when an error is a transient conflict (serialization failure, deadlock) worth retrying. */
  @Override
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

  /**
   * {@inheritDoc}
   *
   * <p>The full row is tried under a savepoint (a refused statement aborts a PostgreSQL
   * transaction); if the database refuses it for anything but trouble of its own, the minimal row
   * is stored in its place, with the refusal's SQLSTATE in the reason.
   */
  @Override
  public void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason,
      int attempts) {
    try {
      ParkedRow row = ParkedRow.of(message, payloadHash, reason, attempts, dialect.inboxMaxParkedPayloadBytes(c));
      Savepoint before = c.setSavepoint();
      try {
        dialect.inboxPark(c, consumer, row);
        c.releaseSavepoint(before);
        return;
      } catch (SQLException | RuntimeException e) {
        if (StoreRules.isInfrastructure(e, dialect::isTransient)) {
          throw e; // a retry may store the full row
        }
        c.rollback(before);
        dialect.inboxParkMinimal(c, consumer, row.minimal("full row refused: " + refusal(e)));
      }
    } catch (SQLException e) {
      throw Transactions.map(dialect, "park a message", e);
    }
  }

  /** The refusal without its text, which may quote the message's content. */
  private static String refusal(Exception e) {
    return e instanceof SQLException s ? "SQLSTATE " + s.getSQLState() : e.getClass().getSimpleName();
  }

  @Override
  public void requireCommittable(Connection c) {
    try {
      dialect.inboxRequireCommittable(c);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "commit the consumer's transaction", e);
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
  public void clearAttempts(Connection c, String consumer, List<String> messageIds) {
    try {
      dialect.inboxClearAttempts(c, consumer, messageIds);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "clear attempts", e);
    }
  }

  @Override
  public Map<String, Integer> storedAttempts(Connection c, String consumer, List<String> ids) {
    try {
      return dialect.inboxAttempts(c, consumer, ids);
    } catch (SQLException e) {
      throw Transactions.map(dialect, "read attempt counters", e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction, counters taken in id order: two consumers counting overlapping batches
   * after a rebalance lock their rows in the same order and cannot deadlock.
   */
  @Override
  public Map<String, Integer> recordAttempts(String consumer, List<String> ids, String error) {
    List<String> sorted = ids.stream().sorted().toList();
    return Transactions.run(dataSource, dialect, "record attempts", c -> {
      Map<String, Integer> counts = new java.util.LinkedHashMap<>();
      for (String id : sorted) {
        counts.put(id, dialect.inboxRecordAttempt(c, consumer, id, error));
      }
      return counts;
    });
  }

  @Override
  public int purgeProcessed(Duration age, int limit) {
    return Transactions.run(dataSource, dialect, "purge inbox records", c -> dialect.inboxPurge(c, age, limit));
  }

  /** The guard's tables come with {@link JdbcStore#migrate()} (PostgreSQL V6, MariaDB V5). */
  @Override
  public boolean supportsOrdering() {
    return true;
  }

  @Override
  public long lastSequence(Connection c, String consumer, String aggregateType, String aggregateId) {
    return guard(c, "read the last applied sequence",
        conn -> dialect.inboxOrder().lastSequence(conn, consumer, aggregateType, aggregateId));
  }

  @Override
  public void setLastSequence(Connection c, String consumer, String aggregateType, String aggregateId,
      long sequence) {
    guard(c, "record the last applied sequence", conn -> {
      dialect.inboxOrder().setLastSequence(conn, consumer, aggregateType, aggregateId, sequence);
      return null;
    });
  }

  @Override
  public void hold(Connection c, String consumer, InboxMessage message) {
    guard(c, "hold a message for its gap", conn -> {
      dialect.inboxOrder().hold(conn, consumer, message);
      return null;
    });
  }

  @Override
  public List<InboxMessage> held(Connection c, String consumer, String aggregateType, String aggregateId) {
    return guard(c, "read held messages",
        conn -> dialect.inboxOrder().held(conn, consumer, aggregateType, aggregateId));
  }

  @Override
  public void release(Connection c, String consumer, String messageId) {
    releaseHeld(c, consumer, messageId);
  }

  @Override
  public boolean releaseHeld(Connection c, String consumer, String messageId) {
    return guard(c, "release a held message", conn -> dialect.inboxOrder().release(conn, consumer, messageId));
  }

  @Override
  public List<InboxMessage> heldLongerThan(Connection c, String consumer, Duration age, int limit) {
    return guard(c, "read overdue held messages",
        conn -> dialect.inboxOrder().heldLongerThan(conn, consumer, age, limit));
  }

  // ---- replay of parked messages (the consumer's side)

  /** The parked rows' states come with {@link JdbcStore#migrate()} (PostgreSQL V7, MariaDB V6). */
  @Override
  public boolean supportsReplay() {
    return true;
  }

  @Override
  public List<ParkedMessage> replayRequests(String consumer, int limit) {
    return Transactions.run(dataSource, dialect, "read replay requests",
        c -> dialect.parked().replayRequests(c, consumer, limit));
  }

  @Override
  public ReplayStart startReplay(Connection c, String consumer, long parkedId) {
    return guard(c, "start a replay", conn -> {
      Optional<ParkedMessage> row = dialect.parked().lockReplaying(conn, consumer, parkedId);
      if (row.isEmpty()) {
        return ReplayStart.GONE;
      }
      String id = row.get().messageId();
      String hash = row.get().payloadHash();
      if (!dialect.inboxRecord(conn, consumer, Map.of(id, hash)).isEmpty()) {
        return ReplayStart.APPLY; // the record had been purged: recorded now
      }
      return hash.equals(dialect.inboxHashes(conn, consumer, List.of(id)).get(id)) ? ReplayStart.APPLY
          : ReplayStart.APPLIED_BEFORE;
    });
  }

  @Override
  public void finishReplay(Connection c, String consumer, long parkedId, boolean applied) {
    guard(c, "finish a replay", conn -> {
      String by = "consumer:" + consumer;
      ParkedMessage m = dialect.parked().change(conn, parkedId, ParkedState.REPLAYED,
          applied ? ParkedAudit.REPLAYED : ParkedAudit.REPLAYED_NOOP, by);
      dialect.inboxClearAttempts(conn, consumer, m.messageId());
      return null;
    });
  }

  @Override
  public boolean replayFailed(String consumer, long parkedId, String reason) {
    return Transactions.run(dataSource, dialect, "return a failed replay to parked",
        c -> dialect.parked().replayFailed(c, consumer, parkedId, StoreRules.storableReason(reason),
            "consumer:" + consumer));
  }

  // ---- InboxAdminStore

  @Override
  public List<ParkedMessage> parked(ParkedFilter filter) {
    return Transactions.run(dataSource, dialect, "list parked messages", c -> dialect.parked().list(c, filter));
  }

  @Override
  public Optional<ParkedMessage> parkedMessage(long id, boolean withPayload) {
    return Transactions.run(dataSource, dialect, "read a parked message",
        c -> dialect.parked().one(c, id, withPayload, false));
  }

  @Override
  public ParkedMessage requestReplay(long id, String by) {
    return Transactions.run(dataSource, dialect, "request a replay",
        c -> dialect.parked().change(c, id, ParkedState.REPLAYING, ParkedAudit.REPLAY_REQUESTED, by));
  }

  @Override
  public int requestReplay(ParkedFilter filter, String by) {
    return Transactions.run(dataSource, dialect, "request replays", c -> dialect.parked().changeAll(c, filter,
        List.of(ParkedState.PARKED), true, ParkedState.REPLAYING, ParkedAudit.REPLAY_REQUESTED, by));
  }

  @Override
  public ParkedMessage discard(long id, String by) {
    return Transactions.run(dataSource, dialect, "discard a parked message",
        c -> dialect.parked().change(c, id, ParkedState.DISCARDED, ParkedAudit.DISCARDED, by));
  }

  @Override
  public int discard(ParkedFilter filter, String by) {
    return Transactions.run(dataSource, dialect, "discard parked messages", c -> dialect.parked().changeAll(c,
        filter, List.of(ParkedState.PARKED, ParkedState.REPLAYING), false, ParkedState.DISCARDED,
        ParkedAudit.DISCARDED, by));
  }

  @Override
  public List<ParkedSummary> parkedSummary() {
    return Transactions.run(dataSource, dialect, "count parked messages", c -> dialect.parked().summary(c));
  }

  @Override
  public List<ParkedAudit> audit(long id) {
    return Transactions.run(dataSource, dialect, "read a parked message's audit trail",
        c -> dialect.parked().auditTrail(c, id));
  }

  /** Runs {@code work} on the caller's connection, in the caller's transaction. */
  private <T> T guard(Connection c, String what, Transactions.SqlWork<T> work) {
    try {
      return work.run(c);
    } catch (SQLException e) {
      throw Transactions.map(dialect, what, e);
    }
  }

  @Override
  public boolean forwardsParked() {
    return true;
  }

  /** Parked messages not yet forwarded (schema script V8/V7); see {@link InboxStore#unforwardedParked}. */
  @Override
  public List<ParkedLetter> unforwardedParked(String consumer, int limit) {
    return Transactions.run(dataSource, dialect, "read parked messages to forward",
        c -> dialect.deadLetters().unforwardedParked(c, consumer, limit));
  }

  @Override
  public int parkedForwarded(java.util.Collection<Long> rows) {
    return Transactions.run(dataSource, dialect, "mark parked messages forwarded",
        c -> dialect.deadLetters().parkedForwarded(c, rows));
  }
}
