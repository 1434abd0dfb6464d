package io.twinbox.testkit;

import java.util.Objects;
import java.util.UUID;

/**
 * An event a test wrote to the outbox, as the {@link DeliveryChecker} needs to know it: its message
 * id, its aggregate and its per-aggregate sequence.
 *
 * <p>Immutable and thread-safe.
 *
 * @param id the message id
 * @param aggregateType the aggregate type, never null
 * @param aggregateId the aggregate id; null for an unordered event
 * @param sequence the per-aggregate sequence the store assigned; 0 for an unordered event
 */
public record ExpectedEvent(UUID id, String aggregateType, String aggregateId, long sequence) {

  public ExpectedEvent {
    Objects.requireNonNull(id, "id cannot be null");
    Objects.requireNonNull(aggregateType, "aggregateType cannot be null");
  }

  /** An event of aggregate {@code (aggregateType, aggregateId)} with the given sequence. */
  public static ExpectedEvent ordered(UUID id, String aggregateType, String aggregateId,
      long sequence) {
    return new ExpectedEvent(id, aggregateType,
        Objects.requireNonNull(aggregateId, "aggregateId cannot be null"), sequence);
  }

  /** An event without an aggregate id: it takes no part in ordering. */
  public static ExpectedEvent unordered(UUID id, String aggregateType) {
    return new ExpectedEvent(id, aggregateType, null, 0);
  }

  /** True when the event belongs to an aggregate and must arrive in sequence order. */
  public boolean ordered() {
    return aggregateId != null;
  }
}
