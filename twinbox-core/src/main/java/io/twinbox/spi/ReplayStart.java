package io.twinbox.spi;

/** What {@link InboxStore#startReplay} found, in the replay's transaction. */
public enum ReplayStart {
  /** The row is locked and its message is recorded for this transaction: run the handler. */
  APPLY,
  /**
   * The message id is recorded for another payload (the row was parked as a same-id conflict):
   * the id was applied, so the handler must not run; the row ends {@code REPLAYED} as a no-op.
   */
  APPLIED_BEFORE,
  /** The row is no longer {@code REPLAYING} (discarded, or replayed by another instance): nothing to do. */
  GONE
}
