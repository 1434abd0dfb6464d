package io.twinbox;

import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.util.List;
import java.util.Set;

/**
 * Receives the relay's events: the hook for metrics, logs and tests. Every method has a no-op
 * default; implementations must be fast and thread-safe (workers call them concurrently) and must
 * not throw (exceptions are logged and ignored).
 */
public interface RelayListener {
  RelayListener NONE = new RelayListener() {};

  /** Messages acknowledged by the broker and completed in the outbox. */
  default void published(List<OutboxMessage> messages) {}

  /** A publish failed because of the message; {@code dead} when it went to FAILED. */
  default void publishFailed(OutboxMessage message, String reason, boolean dead) {}

  /**
   * A claimed row could not be decoded into a message (see {@link io.twinbox.spi.ClaimedRow}) and
   * was moved to FAILED with {@link UndecodableRow#reason()}, without a publish. Counted in {@link
   * RelayStats#dead()} too.
   */
  default void undecodable(UndecodableRow row) {}

  /** A FAILED event's dead letter was acknowledged by the dead-letter destination and marked sent. */
  default void deadLettered(DeadLetter letter) {}

  /** Publishing a dead letter failed ({@code reason}); it stays pending and is sent again later. */
  default void deadLetterFailed(DeadLetter letter, String reason) {}

  /** The broker could not be reached; the relay backs off without counting attempts. */
  default void transportUnavailable(String reason) {}

  /** {@code rows} completions were refused because this relay no longer held the lease. */
  default void fenced(int rows) {}

  /** The set of partitions this relay holds changed. */
  default void leasesChanged(Set<Integer> partitions) {}

  /** How far the replication slot is behind; WAL relays only, every few seconds while streaming. */
  default void changeFeed(ChangeFeedStatus status) {}

  /**
   * The WAL relay's replication slot was lost ({@link ChangeFeedException.Problem#SLOT_LOST}):
   * the relay stopped streaming and released its leases (see {@link Relay#fault()}).
   */
  default void changeFeedLost(ChangeFeedException reason) {}
}
