package io.twinbox.spi;

import io.twinbox.CompletionMode;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Where outbox events live: written in the caller's transaction, claimed and completed by the
 * relay. One implementation per database family lives in {@code twinbox-jdbc}.
 *
 * <p>All relay-side methods judge time on the database's clock and fence every state change by
 * the presented {@link PartitionLease}s. Implementations must be thread-safe.
 */
public interface OutboxStore {

  /** Number of partitions the outbox is split into; fixed by the schema. */
  int partitionCount();

  /** Checks that the schema exists and is current; throws {@code SchemaNotMigratedException}. */
  void verifySchema();

  /**
   * Writes events on the caller's connection, inside the caller's transaction, assigning each
   * ordered event the next sequence of its aggregate, and wakes the relay once the transaction
   * commits.
   */
  void append(Connection connection, List<PreparedEvent> events);

  /** Records that {@code nodeId} is alive; returns how many nodes are alive within {@code ttl}. */
  int heartbeat(String nodeId, Duration ttl);

  /** Takes up to {@code max} partitions that are free or whose lease expired; epochs grow. */
  List<PartitionLease> acquire(String nodeId, int max, Duration ttl);

  /** Extends the given leases; returns those still held (a lease taken over is missing). */
  List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl);

  /** Gives leases up at once, so another node can take them without waiting for expiry. */
  void release(String nodeId, Collection<PartitionLease> leases);

  /** Forgets the node (graceful shutdown). */
  void leave(String nodeId);

  /**
   * Returns due pending messages of the leased partitions, oldest position first, skipping every
   * aggregate held back by an earlier message that is backing off or FAILED. Never returns a
   * message of a partition whose lease is no longer valid.
   */
  List<OutboxMessage> claim(String nodeId, Collection<PartitionLease> leases, int limit);

  /**
   * Completes published rows and records failed ones in one short transaction, touching only
   * rows of partitions whose lease ({@code nodeId}, epoch) is still held.
   */
  Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode);

  /**
   * Registers a callback run when a commit that wrote events is announced (PostgreSQL
   * LISTEN/NOTIFY). Stores without such a signal return a no-op; the relay then relies on polling.
   */
  default AutoCloseable onWrite(Runnable callback) {
    return () -> {};
  }
}
