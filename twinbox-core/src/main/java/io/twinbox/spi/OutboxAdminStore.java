package io.twinbox.spi;

import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The operator's view of an outbox store: counts, listings, and the few state changes an operator
 * may make. Thread-safe.
 */
public interface OutboxAdminStore {

  OutboxStatus status();

  /**
   * Rows in FAILED or retrying, oldest first, optionally filtered by exact type and aggregate
   * ({@code null} = any).
   */
  List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit);

  /** Puts FAILED rows back to PENDING with attempts reset, due now. Returns the rows changed. */
  int retry(EventSelector selector);

  /** Removes FAILED rows without publishing them, unblocking their aggregates. Returns the rows. */
  int skip(EventSelector selector);

  /** Deletes up to {@code limit} PUBLISHED rows older than {@code age} (MARK mode retention). */
  int purgePublished(Duration age, int limit);

  /** Which FAILED rows an operation applies to: one id, one aggregate, or all. */
  record EventSelector(UUID id, String aggregateType, String aggregateId, boolean all) {
    public static EventSelector id(UUID id) {
      return new EventSelector(id, null, null, false);
    }

    public static EventSelector aggregate(String aggregateType, String aggregateId) {
      return new EventSelector(null, aggregateType, aggregateId, false);
    }

    public static EventSelector allFailed() {
      return new EventSelector(null, null, null, true);
    }
  }
}
