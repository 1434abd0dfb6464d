package io.twinbox;

import io.twinbox.internal.Reasons;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Is the outbox being drained? DOWN when the oldest pending event is older than a threshold, when
 * events are pending but no live relay holds a lease, or when the database cannot be read; and,
 * for the relays it is {@linkplain #watching watching}, while one reports a {@linkplain
 * Relay#fault() fault} (a WAL relay whose slot was lost). Stateless apart from its settings;
 * thread-safe.
 */
public final class Health {
  /** The verdict, with the reasons when DOWN and the snapshot it was based on (null if unreadable). */
  public record Report(boolean up, List<String> reasons, OutboxStatus status) {}

  private final OutboxAdminStore store;
  private final Duration maxOldestPendingAge;
  private final List<Supplier<? extends Relay>> relays;

  /** With the default threshold, {@link HealthSettings#MAX_OLDEST_PENDING_AGE}. */
  public Health(OutboxAdminStore store) {
    this(store, HealthSettings.MAX_OLDEST_PENDING_AGE.defaultValue());
  }

  /**
   * @param maxOldestPendingAge DOWN once the oldest pending event is older than this ({@link
   *     HealthSettings#MAX_OLDEST_PENDING_AGE})
   */
  public Health(OutboxAdminStore store, Duration maxOldestPendingAge) {
    this(store, HealthSettings.MAX_OLDEST_PENDING_AGE.check(maxOldestPendingAge), List.of());
  }

  private Health(OutboxAdminStore store, Duration maxOldestPendingAge, List<Supplier<? extends Relay>> relays) {
    this.store = Objects.requireNonNull(store, "store cannot be null");
    this.maxOldestPendingAge = maxOldestPendingAge;
    this.relays = relays;
  }

  /**
   * This check, also DOWN while the relay {@code relay} supplies (read at each check; {@code null}
   * while none runs) reports a {@linkplain Relay#fault() fault}, with the fault as the reason.
   */
  public Health watching(Supplier<? extends Relay> relay) {
    Objects.requireNonNull(relay, "relay cannot be null");
    List<Supplier<? extends Relay>> more = new ArrayList<>(relays);
    more.add(relay);
    return new Health(store, maxOldestPendingAge, List.copyOf(more));
  }

  /** The threshold in use. */
  public Duration maxOldestPendingAge() {
    return maxOldestPendingAge;
  }

  public Report check() {
    List<String> reasons = new ArrayList<>();
    for (Supplier<? extends Relay> supplier : relays) {
      Relay relay = supplier.get();
      Optional<TwinboxException> fault = relay == null ? Optional.empty() : relay.fault();
      fault.ifPresent(f -> reasons.add("relay " + relay.nodeId() + " stopped: " + f.getMessage()));
    }
    OutboxStatus s;
    try {
      s = store.status();
    } catch (RuntimeException e) {
      reasons.add("cannot read the outbox: " + Reasons.of(e));
      return new Report(false, List.copyOf(reasons), null);
    }
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
