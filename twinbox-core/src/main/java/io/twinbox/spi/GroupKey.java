package io.twinbox.spi;

import java.util.Objects;

/**
 * The unit of ordering: an aggregate ({@code aggregateType} + {@code aggregateId}), or, for an
 * unordered event, the event itself (its message id as {@code key}). Immutable.
 *
 * @param ordered {@code true} for an aggregate, {@code false} for one unordered event
 */
public record GroupKey(String aggregateType, String key, boolean ordered) {
  public GroupKey {
    Objects.requireNonNull(aggregateType, "aggregateType cannot be null");
    Objects.requireNonNull(key, "key cannot be null");
  }

  /** The group a message belongs to. */
  public static GroupKey of(OutboxMessage m) {
    return m.aggregateId() != null
        ? new GroupKey(m.aggregateType(), m.aggregateId(), true)
        : new GroupKey(m.aggregateType(), m.id().toString(), false);
  }
}
