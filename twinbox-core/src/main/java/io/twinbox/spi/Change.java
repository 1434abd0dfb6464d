package io.twinbox.spi;

import java.time.Instant;

/**
 * One item of a {@link ChangeFeed}, in commit order: every transaction that inserted outbox rows
 * arrives as {@link Begin}, its rows ({@link Insert} or {@link Unreadable}) in insertion order, and
 * {@link Commit}. Only committed transactions are delivered. Immutable.
 */
public sealed interface Change permits Change.Begin, Change.Insert, Change.Unreadable, Change.Commit {

  /** @param xid the transaction's id (32 bits), to ask the store whether it is still in progress */
  record Begin(long xid) implements Change {}

  /**
   * An outbox row, decoded to exactly the message the polling claim would return.
   *
   * @param ready {@code false} when the row was inserted as FAILED or with a later {@code
   *     next_attempt_at}: the relay must not publish it now, and its aggregate waits for it
   */
  record Insert(OutboxMessage message, boolean ready) implements Change {}

  /** An outbox row that cannot be decoded; it goes to FAILED with {@code reason}. */
  record Unreadable(long position, GroupKey group, String reason) implements Change {}

  /**
   * @param endLsn the position just past the transaction's commit record: confirming it tells the
   *     server that this transaction and every earlier one are done
   */
  record Commit(long endLsn, Instant commitTime) implements Change {}
}
