package io.twinbox;

import java.time.Instant;

/**
 * An aggregate whose events stopped being published: its earliest FAILED or retrying event holds
 * every later event of the aggregate back until it is published, retried or skipped.
 *
 * @param holding the event that holds the aggregate (its lowest sequence in FAILED or retrying);
 *     its {@link StoredEvent#lastError()} says why, its {@link StoredEvent#attempts()} how often it
 *     was tried
 * @param since when the holding event was written: nothing of the aggregate written after it has
 *     been published since
 */
public record HeldAggregate(String aggregateType, String aggregateId, StoredEvent holding, Instant since) {
  /** Why the aggregate is held. */
  public enum Reason {
    /** The holding event ran out of attempts; it waits for retry or skip. */
    FAILED,
    /** The holding event failed at least once and the relay tries it again at its next attempt time. */
    RETRYING
  }

  public Reason reason() {
    return "FAILED".equals(holding.status()) ? Reason.FAILED : Reason.RETRYING;
  }
}
