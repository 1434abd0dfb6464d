package io.twinbox.spi;

import io.twinbox.HeldAggregate;
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

  /**
   * The held aggregates, the one whose holding event has the lowest position first, optionally of
   * one aggregate type ({@code null} = any): for each, its earliest FAILED or retrying event.
   * Default: unsupported, for stores written before held aggregates could be listed.
   */
  default List<HeldAggregate> heldAggregates(String aggregateType, int limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot list held aggregates");
  }

  /**
   * One page of PENDING rows (retrying ones included) in position order, after {@code
   * query.afterPosition()}. Default: unsupported, for stores written before pending events could be
   * browsed.
   */
  default List<StoredEvent> pending(PendingQuery query) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot list pending events");
  }

  /**
   * How many PUBLISHED rows are older than {@code age} — what {@link #purgePublished} would delete
   * in total. Default: unsupported, for stores written before the count existed.
   */
  default long countPublished(Duration age) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot count published events");
  }

  /** Puts FAILED rows back to PENDING with attempts reset, due now. Returns the rows changed. */
  int retry(EventSelector selector);

  /** Removes FAILED rows without publishing them, unblocking their aggregates. Returns the rows. */
  int skip(EventSelector selector);

  /**
   * Deletes up to {@code limit} PUBLISHED rows older than {@code age} (MARK mode retention) and
   * returns how many. A store that keeps its outbox in time partitions may remove whole partitions
   * instead (all older than {@code age}, holding PUBLISHED rows only): then the count may exceed
   * {@code limit}, and rows of a partition not wholly older than {@code age} stay until it is.
   */
  int purgePublished(Duration age, int limit);

  /**
   * Moves up to {@code limit} PUBLISHED rows older than {@code age} to the archive (every column as
   * it was, plus the time of the move) instead of deleting them: archive mode of retention. One
   * batch moves entirely or not at all. Returns the rows moved. Default: unsupported, for stores
   * without an archive.
   */
  default int archivePublished(Duration age, int limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no archive");
  }

  /** Whether {@link #archivePublished} works; retention refuses archive mode otherwise. Default: false. */
  default boolean hasArchive() {
    return false;
  }

  /** How many rows the archive holds. Default: unsupported, for stores without an archive. */
  default long countArchived() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no archive");
  }

  /**
   * Archived rows of one aggregate ({@code null} = any) in sequence order, at most {@code limit}.
   * Default: unsupported, for stores without an archive.
   */
  default List<StoredEvent> archived(String aggregateType, String aggregateId, int limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no archive");
  }

  /**
   * Deletes up to {@code limit} entries older than {@code age} from the ledger of caller-chosen
   * message ids (the ids a writer supplied itself instead of letting one be generated; the ledger
   * refuses a reused one even after its event was published and deleted). After the purge such an
   * id can be used again. Default: nothing to purge (a store without a ledger).
   */
  default int purgeSuppliedIds(Duration age, int limit) {
    return 0;
  }

  /**
   * The parked-message side of the same database, when this store has one: {@link
   * io.twinbox.TwinboxAdmin#of(OutboxAdminStore)} uses it for the parked-message operations.
   * Default: none.
   */
  default java.util.Optional<InboxAdminStore> inboxAdmin() {
    return java.util.Optional.empty();
  }

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

  /**
   * Which PENDING rows to list: exact type, aggregate type and aggregate id ({@code null} = any),
   * written at least {@code olderThan} ago ({@link Duration#ZERO} = any age), with a position
   * greater than {@code afterPosition} (0 = from the start; the last listed position for the next
   * page), at most {@code limit} rows.
   */
  record PendingQuery(String type, String aggregateType, String aggregateId, Duration olderThan,
      long afterPosition, int limit) {
    /** Every pending row, the first {@code limit}. */
    public static PendingQuery first(int limit) {
      return new PendingQuery(null, null, null, Duration.ZERO, 0, limit);
    }
  }
}
