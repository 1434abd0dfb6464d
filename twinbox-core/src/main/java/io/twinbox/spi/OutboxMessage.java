package io.twinbox.spi;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A stored outbox event as the relay reads it and hands it to a {@link Transport}: the decoded
 * kind of {@link ClaimedRow}.
 *
 * @param position the row's position in the outbox (insertion order, not commit order)
 * @param aggregateId {@code null} for an unordered event
 * @param sequence the per-aggregate sequence, gap-free and in commit order; 0 for unordered events
 * @param source the CloudEvents {@code source} configured on the relay
 * @param attempts failed publish attempts so far
 */
public record OutboxMessage(
    long position,
    UUID id,
    String aggregateType,
    String aggregateId,
    long sequence,
    int partition,
    String type,
    int version,
    String payload,
    Map<String, String> headers,
    String correlationId,
    String causationId,
    String traceparent,
    Instant occurredAt,
    Instant createdAt,
    int attempts,
    String source) implements ClaimedRow {

  /** The key that orders events: the aggregate id, or the message id for unordered events. */
  public String key() {
    return aggregateId != null ? aggregateId : id.toString();
  }

  /** The same message with the relay's CloudEvents source filled in. */
  public OutboxMessage withSource(String newSource) {
    return new OutboxMessage(position, id, aggregateType, aggregateId, sequence, partition, type, version,
        payload, headers, correlationId, causationId, traceparent, occurredAt, createdAt, attempts, newSource);
  }

  /**
   * The same message with other user headers, for a {@link Transport} decorator that adds wire
   * headers (e.g. W3C {@code traceparent}); transports write user headers under their own names.
   * The map is copied, its order kept.
   */
  public OutboxMessage withHeaders(Map<String, String> newHeaders) {
    Map<String, String> copy = Collections.unmodifiableMap(new LinkedHashMap<>(newHeaders));
    return new OutboxMessage(position, id, aggregateType, aggregateId, sequence, partition, type, version,
        payload, copy, correlationId, causationId, traceparent, occurredAt, createdAt, attempts, source);
  }
}
