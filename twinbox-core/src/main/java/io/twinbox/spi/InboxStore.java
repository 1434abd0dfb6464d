package io.twinbox.spi;

import io.twinbox.InboxMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where a consumer's inbox lives: {@code (consumer, message id)} records written in the consumer's
 * own transaction, parked messages, and attempt counters. Implementations must be thread-safe and
 * must detect conflicts by key ({@code ON CONFLICT} / SQLSTATE), never by error text.
 *
 * <p>Whatever arrives from a broker must end somewhere, so {@link #park} is total: it fails only
 * when the database is unreachable or in trouble, never because of what the message holds. Message
 * ids reach {@link #record}, {@link #recordAttempt} and {@link #park} clean (no NUL, no unpaired
 * surrogate) and within 255 characters — the consumer runner sees to that; error texts and reasons
 * may hold anything, and the store cleans and clips them.
 */
public interface InboxStore {

  /**
   * Records the messages for {@code consumer} as the first statement(s) of the caller's
   * transaction, in one set-based statement. Returns the ids that were new. An id already
   * recorded — also by a concurrent transaction, which this call waits for — is not new.
   *
   * @param hashes message id → payload hash (hex SHA-256), ids distinct
   */
  List<String> record(Connection c, String consumer, Map<String, String> hashes);

  /** The stored payload hashes of already-recorded ids (read in a fresh statement). */
  Map<String, String> storedHashes(Connection c, String consumer, List<String> ids);

  /**
   * Parks a message with a reason; also records it in the inbox so it is not processed again.
   * Total: every field is made to fit its column (clipped, NUL mapped, a payload that cannot be text
   * kept as base64), the reason says what was changed, and if the database still refuses the row, a
   * minimal one (id, consumer, hash, reason, attempts) is stored instead. Throws only for database
   * trouble (lost connection, deadlock …), leaving the caller's transaction usable for a retry.
   */
  void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason, int attempts);

  /**
   * Increments and returns the persisted attempt counter of a message, in its own short
   * transaction: a message that kills the process still makes progress towards being parked.
   */
  int recordAttempt(String consumer, String messageId, String error);

  /** Forgets the attempt counter once the message is processed or parked. */
  void clearAttempts(Connection c, String consumer, String messageId);

  /**
   * The attempt counters of these messages (a message without one is absent), read on {@code c}.
   * The consumer runner asks after a restart: a redelivered message whose counter is still 0 may
   * run in a batch with its peers, counted first all at once; one with a counter runs alone. The
   * default answers {@code null}, "cannot say": every redelivered message the inbox does not hold
   * then runs alone, counted first — correct, but two transactions per message after a restart.
   *
   * @param ids distinct message ids
   */
  default Map<String, Integer> storedAttempts(Connection c, String consumer, List<String> ids) {
    return null;
  }

  /**
   * As {@link #recordAttempt} for several messages, in one short transaction of its own (the
   * default: one per message). Returns each message's new counter.
   *
   * @param ids distinct message ids
   */
  default Map<String, Integer> recordAttempts(String consumer, List<String> ids, String error) {
    Map<String, Integer> counts = new java.util.LinkedHashMap<>();
    for (String id : ids) {
      counts.put(id, recordAttempt(consumer, id, error));
    }
    return counts;
  }

  /** As {@link #clearAttempts(Connection, String, String)} for several messages, in the caller's transaction. */
  default void clearAttempts(Connection c, String consumer, List<String> messageIds) {
    for (String id : messageIds) {
      clearAttempts(c, consumer, id);
    }
  }

  /** Deletes up to {@code limit} inbox records older than {@code age}; returns how many. */
  int purgeProcessed(Duration age, int limit);

  /**
   * Throws when the transaction on {@code c} can no longer commit although no statement failed
   * before the caller's eyes: PostgreSQL keeps a transaction aborted by an error that a handler
   * caught and swallowed, and its driver turns the COMMIT into a silent ROLLBACK — the consumer
   * would acknowledge a message whose effect and inbox record were both lost. Called right before
   * the consumer commits. Default: nothing to check.
   *
   * @throws io.twinbox.StoreException with SQLSTATE 25P02 as its cause when the transaction is aborted
   */
  default void requireCommittable(Connection c) {}

  // ---- the ordering guard (R17): used only by an inbox built with an ordering other than NONE

  /** True when this store keeps the ordering guard's tables. Default: it does not. */
  default boolean supportsOrdering() {
    return false;
  }

  /**
   * The last applied sequence of an aggregate for {@code consumer} (0 when none), read in the
   * caller's transaction and locked until it ends: a concurrent transaction of the same consumer and
   * aggregate waits, so two deliveries cannot both judge themselves the next one.
   */
  default long lastSequence(Connection c, String consumer, String aggregateType, String aggregateId) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  /** Sets the last applied sequence (after {@link #lastSequence} locked it), in the caller's transaction. */
  default void setLastSequence(Connection c, String consumer, String aggregateType, String aggregateId,
      long sequence) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  /**
   * Keeps a message that must wait for an earlier sequence of its aggregate, in the caller's
   * transaction (the message is already recorded, so the broker may be acknowledged).
   */
  default void hold(Connection c, String consumer, InboxMessage message) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  /** The messages held for an aggregate, by sequence. */
  default List<InboxMessage> held(Connection c, String consumer, String aggregateType, String aggregateId) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  /** Forgets a held message (applied or parked), in the caller's transaction. */
  default void release(Connection c, String consumer, String messageId) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  /**
   * As {@link #release}, and says whether the message was still held: false when another
   * transaction released it first (two consumers parking the same overdue hold). The ordering
   * guard parks an overdue hold only when this returns true. The default releases and answers true;
   * stores with an ordering guard should answer from the statement's row count.
   */
  default boolean releaseHeld(Connection c, String consumer, String messageId) {
    release(c, consumer, messageId);
    return true;
  }

  /** Up to {@code limit} messages held longer than {@code age} (store clock), oldest first. */
  default List<InboxMessage> heldLongerThan(Connection c, String consumer, Duration age, int limit) {
    throw new UnsupportedOperationException("this store has no ordering guard");
  }

  // ---- replay of parked messages: used by an InboxConsumer when the store supports it

  /** True when this store keeps the parked rows' states, so that operators' replays reach the consumer. */
  default boolean supportsReplay() {
    return false;
  }

  /**
   * Up to {@code limit} messages of {@code consumer} in {@code REPLAYING}, oldest request first, with
   * their payloads. A cheap indexed query: the consumer polls it.
   */
  default List<io.twinbox.ParkedMessage> replayRequests(String consumer, int limit) {
    return List.of();
  }

  /**
   * First statements of the replay's transaction on {@code c}: locks the parked row if it is still
   * {@code REPLAYING} for {@code consumer} and records its message id in the inbox. A message id
   * the row's own park recorded (same payload hash) counts as not applied: parking records the id
   * so that the broker's redeliveries are skipped, and the replay is the one application. An id
   * recorded with another payload hash was applied: {@link ReplayStart#APPLIED_BEFORE}.
   */
  default ReplayStart startReplay(Connection c, String consumer, long parkedId) {
    throw new UnsupportedOperationException("this store has no replay of parked messages");
  }

  /**
   * Ends a replay in its transaction on {@code c}, after {@link #startReplay}: the row becomes
   * {@code REPLAYED} by {@code consumer:<consumer>}, with the audit record {@code REPLAYED} (handler
   * ran) or {@code REPLAYED_NOOP} (not {@code applied}); the message's attempt counter is cleared.
   */
  default void finishReplay(Connection c, String consumer, long parkedId, boolean applied) {
    throw new UnsupportedOperationException("this store has no replay of parked messages");
  }

  /**
   * After the replay's transaction rolled back, in a short transaction of its own: a row still
   * {@code REPLAYING} goes back to {@code PARKED} with {@code reason} (cleaned and clipped), attempts
   * + 1 and the audit record {@code REPLAY_FAILED}. Returns false when the row was no longer replaying.
   */
  default boolean replayFailed(String consumer, long parkedId, String reason) {
    throw new UnsupportedOperationException("this store has no replay of parked messages");
  }

  /**
   * True when {@code e} is a transient conflict of this database worth retrying without counting
   * an attempt, beyond what its SQLSTATE class says (08, 40, 53 and 57 always are): for example
   * MariaDB's lock wait timeout, SQLSTATE HY000. Default: nothing more.
   */
  default boolean isTransient(SQLException e) {
    return false;
  }

  /** True when the store keeps a forwarded state on parked rows ({@link #unforwardedParked}). Default: false. */
  default boolean forwardsParked() {
    return false;
  }

  /**
   * Up to {@code limit} parked messages of {@code consumer} not yet forwarded to a dead-letter
   * destination, oldest first. Default: the store does not forward (throws).
   */
  default java.util.List<ParkedLetter> unforwardedParked(String consumer, int limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not forward parked messages");
  }

  /** Marks parked rows forwarded (the destination acknowledged them); returns how many. */
  default int parkedForwarded(java.util.Collection<Long> rows) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not forward parked messages");
  }
}
