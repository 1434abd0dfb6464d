package io.twinbox.spi;

import io.twinbox.CompletionMode;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

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

  /**
   * Registers {@code instance} (a token the relay draws once per start) as the running instance of
   * {@code nodeId}, unless another instance of that node id heartbeated within {@code ttl} (database
   * clock). Returns empty when registered; otherwise the other instance's last heartbeat, which
   * moves on while that instance lives. Registering again with the registered instance succeeds.
   *
   * <p>Default: no check, always registered (stores that predate node instances).
   */
  default Optional<Instant> register(String nodeId, String instance, Duration ttl) {
    return Optional.empty();
  }

  /**
   * {@link #heartbeat(String, Duration)} for a registered {@code instance}: a row of the node id
   * that now belongs to another instance is left alone.
   *
   * @throws io.twinbox.NodeIdInUseException when another instance holds the node id
   */
  default int heartbeat(String nodeId, String instance, Duration ttl) {
    return heartbeat(nodeId, ttl);
  }

  /** {@link #leave(String)}, only while {@code instance} still holds the node id. */
  default void leave(String nodeId, String instance) {
    leave(nodeId);
  }

  /** Takes up to {@code max} partitions that are free or whose lease expired; epochs grow. */
  List<PartitionLease> acquire(String nodeId, int max, Duration ttl);

  /** Extends the given leases; returns those still held (a lease taken over is missing). */
  List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl);

  /** Gives leases up at once, so another node can take them without waiting for expiry. */
  void release(String nodeId, Collection<PartitionLease> leases);

  /** Forgets the node (graceful shutdown). */
  void leave(String nodeId);

  /**
   * Returns due pending rows of the leased partitions, oldest position first, skipping every
   * aggregate held back by an earlier row that is backing off or FAILED. Never returns a row of a
   * partition whose lease is no longer valid.
   *
   * <p>Decoding is row by row: a row that cannot be turned into an {@link OutboxMessage} comes back
   * as an {@link UndecodableRow} with its reason, in its place, and the claim goes on. Only a
   * failure of the store itself (connection, statement) fails the claim.
   */
  List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> leases, int limit);

  /**
   * Completes published rows and records failed ones in one short transaction, touching only
   * rows of partitions whose lease ({@code nodeId}, epoch) is still held. Both lists identify rows
   * by position, so an {@link UndecodableRow} is failed like any other row ({@code dead}, its
   * reason as the error).
   */
  Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode);

  /**
   * True when the store keeps a dead-letter state on its rows ({@link FailedPublish#deadLetter()},
   * {@link #claimDeadLetters}, {@link #deadLettersSent}). Default: false; a relay with dead letters
   * enabled refuses such a store at build time.
   */
  default boolean supportsDeadLetters() {
    return false;
  }

  /**
   * Up to {@code limit} rows whose dead letter is pending, of the given partitions while {@code
   * nodeId} holds their lease (database clock), oldest position first, with the failure's reason,
   * attempts and first and last failure times. Only decoded rows get a pending dead letter (an
   * {@link UndecodableRow} is no CloudEvent); one changed by hand so that it no longer decodes is
   * left out, its dead letter dropped and logged by the store, so it cannot block the others.
   */
  default List<DeadLetter> claimDeadLetters(String nodeId, Collection<PartitionLease> leases, int limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no dead letters");
  }

  /**
   * Marks the dead letters of these rows sent (the destination acknowledged them); a row whose
   * dead letter is not pending is left alone. Returns how many were marked. Idempotent: a second
   * relay marking the same row after a lease hand-off changes nothing.
   */
  default int deadLettersSent(Collection<Long> positions) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no dead letters");
  }

  /**
   * Registers a callback run when a commit that wrote events is announced (PostgreSQL
   * LISTEN/NOTIFY). Stores without such a signal return a no-op; the relay then relies on polling.
   */
  default AutoCloseable onWrite(Runnable callback) {
    return () -> {};
  }
}
