package io.twinbox;

/**
 * The inbox's per-aggregate ordering guard (R17), opt-in per inbox ({@link Inbox.Builder#ordering}).
 * The guard records the last applied {@code sequence} per (consumer, aggregate) in the consumer's
 * transaction; it looks only at messages with an aggregate id and a sequence above 0.
 */
public enum InboxOrdering {
  /** No guard: messages are applied in the order they arrive (the default). */
  NONE,
  /**
   * For state-carrying events (each carries the aggregate's whole new state): a message not newer
   * than the last applied one is skipped as {@link InboxOutcome#STALE}; a newer one is applied even
   * after a gap, since it supersedes what is missing.
   */
  STATE,
  /**
   * For delta events (each changes the state the previous one left): a message not newer than the
   * last applied one is skipped as {@link InboxOutcome#STALE}; after a gap, a later message is
   * {@link InboxOutcome#HELD} in the store until the missing ones arrive, then applied in sequence
   * order; a message held longer than {@link Inbox.Builder#gapTimeout} is parked for an operator.
   */
  DELTA
}
