package io.twinbox;

import io.twinbox.internal.Reasons;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Is the outbox being drained? DOWN when the oldest pending event is older than a threshold, when
 * events are pending but no live relay holds a lease, or when the database cannot be read.
 * Stateless apart from its settings; thread-safe.
 */
public final class Health {
  /** The verdict, with the reasons when DOWN and the snapshot it was based on (null if unreadable). */
  public record Report(boolean up, List<String> reasons, OutboxStatus status) {}

  private final OutboxAdminStore store;
  private final Duration maxOldestPendingAge;

  /**
   * @param maxOldestPendingAge DOWN once the oldest pending event is older than this (e.g. 1 min)
   */
  public Health(OutboxAdminStore store, Duration maxOldestPendingAge) {
    this.store = Objects.requireNonNull(store, "store cannot be null");
    this.maxOldestPendingAge = Objects.requireNonNull(maxOldestPendingAge, "maxOldestPendingAge cannot be null");
  }

  public Report check() {
    OutboxStatus s;
    try {
      s = store.status();
    } catch (RuntimeException e) {
      return new Report(false, List.of("cannot read the outbox: " + Reasons.of(e)), null);
    }
    List<String> reasons = new ArrayList<>();
    if (s.pending() > 0 && s.oldestPendingAge().compareTo(maxOldestPendingAge) > 0) {
      reasons.add("oldest pending event is " + s.oldestPendingAge().toSeconds() + " s old (limit "
          + maxOldestPendingAge.toSeconds() + " s); " + s.pending() + " pending");
    }
    if (s.pending() > 0 && s.leaseOwners().isEmpty()) {
      reasons.add(s.pending() + " events pending but no live relay holds a lease");
    }
    return new Report(reasons.isEmpty(), List.copyOf(reasons), s);
  }
}
