package io.twinbox;

import io.twinbox.spi.OutboxMessage;
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

  /** The broker could not be reached; the relay backs off without counting attempts. */
  default void transportUnavailable(String reason) {}

  /** {@code rows} completions were refused because this relay no longer held the lease. */
  default void fenced(int rows) {}

  /** The set of partitions this relay holds changed. */
  default void leasesChanged(Set<Integer> partitions) {}
}
