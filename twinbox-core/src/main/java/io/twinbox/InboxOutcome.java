package io.twinbox;

/** What the inbox did with one message. */
public enum InboxOutcome {
  /** First time seen by this consumer: the handler ran and its effect commits with the record. */
  PROCESSED,
  /** Already processed by this consumer: the handler did not run. */
  DUPLICATE,
  /**
   * Same message id as an earlier one but a different payload: a producer bug or an id
   * collision. The handler did not run; the message is parked for an operator.
   */
  CONFLICT,
  /** Could not be processed (decode failure or attempts exhausted) and was parked with a reason. */
  PARKED,
  /**
   * Ordering guard ({@link InboxOrdering}): not newer than the aggregate's last applied sequence.
   * Recorded, the handler did not run.
   */
  STALE,
  /**
   * Ordering guard, {@link InboxOrdering#DELTA}: an earlier sequence of its aggregate is missing.
   * Recorded and kept in the store; applied (and reported as processed) once the gap is filled, or
   * parked after the gap timeout.
   */
  HELD
}
