package io.twinbox;

/**
 * Where a parked inbox message stands. A message is parked by its consumer; an operator requests a
 * replay ({@link #REPLAYING}) or discards it; the consumer of that name picks the request up and
 * ends it {@link #REPLAYED} (its handler ran and committed, or the message had been applied already)
 * or back at {@link #PARKED} with the new reason when the handler failed again.
 */
public enum ParkedState {
  /** Waiting for an operator. */
  PARKED,
  /** An operator asked for a replay; the consumer has not finished it yet. */
  REPLAYING,
  /** Replayed through the consumer's handler (or found applied already): final. */
  REPLAYED,
  /** Dropped by an operator, with an audit record: final. */
  DISCARDED;

  /** True for the states nothing changes any more. */
  public boolean isFinal() {
    return this == REPLAYED || this == DISCARDED;
  }
}
