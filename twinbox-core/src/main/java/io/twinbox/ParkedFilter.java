package io.twinbox;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which parked messages a listing or a bulk replay/discard applies to; every criterion given must
 * hold ({@code null}: any). Build it from {@link #open()} or {@link #any()} and narrow it:
 *
 * <pre>{@code
 * ParkedFilter f = ParkedFilter.open().consumer("payment-service").olderThan(Duration.ofMinutes(10)).limit(50);
 * admin.replayParked(f, "alice");
 * }</pre>
 *
 * <p>A bad value is refused at once with an {@link IllegalArgumentException} naming the field and
 * its limit. Immutable.
 *
 * @param consumer exact consumer name
 * @param reasonContains text the reason contains, case-insensitive
 * @param olderThan parked longer ago than this (store clock); must not be negative
 * @param aggregateType exact aggregate type (required with {@code aggregateId})
 * @param aggregateId exact aggregate id
 * @param states the states to include, not empty
 * @param limit the most rows listed or changed, 1–{@value TwinboxAdmin#MAX_LISTED}
 */
public record ParkedFilter(String consumer, String reasonContains, Duration olderThan, String aggregateType,
    String aggregateId, Set<ParkedState> states, int limit) {

  /** The limit of {@link #open()} and {@link #any()}. */
  public static final int DEFAULT_LIMIT = 100;
  /** The longest text of a name or of {@code reasonContains}. */
  public static final int MAX_TEXT = 255;

  public ParkedFilter {
    text("consumer", consumer);
    text("reasonContains", reasonContains);
    text("aggregateType", aggregateType);
    text("aggregateId", aggregateId);
    if (olderThan != null && olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be >= 0, was " + olderThan);
    }
    if (aggregateId != null && aggregateType == null) {
      throw new IllegalArgumentException("aggregateId needs aggregateType");
    }
    Objects.requireNonNull(states, "states cannot be null");
    if (states.isEmpty()) {
      throw new IllegalArgumentException("states must name at least one state");
    }
    states = Set.copyOf(states);
    if (limit < 1 || limit > TwinboxAdmin.MAX_LISTED) {
      throw new IllegalArgumentException("limit must be within [1, " + TwinboxAdmin.MAX_LISTED + "], was " + limit);
    }
  }

  /** The messages still waiting for an operator or a replay: {@code PARKED} and {@code REPLAYING}. */
  public static ParkedFilter open() {
    return new ParkedFilter(null, null, null, null, null, EnumSet.of(ParkedState.PARKED, ParkedState.REPLAYING),
        DEFAULT_LIMIT);
  }

  /** Every parked message, whatever its state. */
  public static ParkedFilter any() {
    return new ParkedFilter(null, null, null, null, null, EnumSet.allOf(ParkedState.class), DEFAULT_LIMIT);
  }

  public ParkedFilter consumer(String consumer) {
    return new ParkedFilter(consumer, reasonContains, olderThan, aggregateType, aggregateId, states, limit);
  }

  public ParkedFilter reasonContains(String text) {
    return new ParkedFilter(consumer, text, olderThan, aggregateType, aggregateId, states, limit);
  }

  public ParkedFilter olderThan(Duration age) {
    return new ParkedFilter(consumer, reasonContains, age, aggregateType, aggregateId, states, limit);
  }

  /** Messages of one aggregate ({@code aggregateId} null: every aggregate of the type). */
  public ParkedFilter aggregate(String aggregateType, String aggregateId) {
    return new ParkedFilter(consumer, reasonContains, olderThan, aggregateType, aggregateId, states, limit);
  }

  public ParkedFilter states(Set<ParkedState> states) {
    return new ParkedFilter(consumer, reasonContains, olderThan, aggregateType, aggregateId, states, limit);
  }

  public ParkedFilter states(ParkedState first, ParkedState... more) {
    return states(EnumSet.of(first, more));
  }

  public ParkedFilter limit(int limit) {
    return new ParkedFilter(consumer, reasonContains, olderThan, aggregateType, aggregateId, states, limit);
  }

  /** True when {@code m} passes the filter, judged with {@code age} as its age (the store's clock). */
  public boolean matches(ParkedMessage m, Duration age) {
    return (consumer == null || consumer.equals(m.consumer()))
        && (reasonContains == null || m.reason().toLowerCase(java.util.Locale.ROOT)
            .contains(reasonContains.toLowerCase(java.util.Locale.ROOT)))
        && (olderThan == null || age.compareTo(olderThan) > 0)
        && (aggregateType == null || aggregateType.equals(m.aggregateType()))
        && (aggregateId == null || aggregateId.equals(m.aggregateId()))
        && states.contains(m.state());
  }

  private static void text(String field, String value) {
    if (value != null && (value.isEmpty() || value.length() > MAX_TEXT)) {
      throw new IllegalArgumentException(field + " must be 1–" + MAX_TEXT + " characters, was " + value.length());
    }
  }
}
