package io.twinbox;

import java.time.Duration;

/**
 * Receives {@link Retention}'s progress: the hook for metrics and logs ({@link
 * io.twinbox.micrometer.RetentionMetrics}). No-op defaults; implementations must be fast,
 * thread-safe and must not throw.
 */
public interface RetentionListener {
  RetentionListener NONE = new RetentionListener() {};

  /** What a batch deleted. */
  enum Kind {
    /** PUBLISHED outbox rows (completion mode MARK). */
    PUBLISHED_EVENTS,
    /** PUBLISHED outbox rows moved to the archive instead of deleted (archive mode). */
    ARCHIVED_EVENTS,
    /** Entries of the supplied-id ledger. */
    SUPPLIED_IDS,
    /** Inbox records (never parked messages: they live in their own table). */
    INBOX_RECORDS
  }

  /**
   * One batch removed {@code rows} rows of {@code kind} (for {@link Kind#ARCHIVED_EVENTS}: moved
   * them to the archive).
   */
  default void deleted(Kind kind, int rows) {}

  /** A round ran to its end (nothing left that is due) and took {@code took}. */
  default void roundCompleted(Retention.Result result, Duration took) {}

  /**
   * A round did nothing because another runner (another instance, another process) held the
   * retention lock: one runner at a time across instances.
   */
  default void roundSkipped() {}

  /** A round failed (the database was unreachable, a statement failed); the next round tries again. */
  default void roundFailed(RuntimeException error) {}
}
