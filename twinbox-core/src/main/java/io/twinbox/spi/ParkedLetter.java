package io.twinbox.spi;

import io.twinbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A parked inbox message on its way to a dead-letter destination (consumer side): the message as
 * it was parked (its original id, attributes and payload), the consumer, why and when.
 * {@link WireAttributes#of(ParkedLetter, java.net.URI)} gives its CloudEvents attributes.
 *
 * @param row the parked row's id: how the store marks it forwarded
 * @param message the parked message, as stored (a payload too large to store is absent: empty)
 * @param consumer the consumer that parked it
 * @param reason why it was parked
 * @param attempts handler attempts before it was parked
 * @param parkedAt when it was parked (database clock)
 */
public record ParkedLetter(long row, InboxMessage message, String consumer, String reason, int attempts,
    Instant parkedAt) {

  public ParkedLetter {
    Objects.requireNonNull(message, "message cannot be null");
  }

  /**
   * The message as an outbox message, for a transport's dead-letter router and body: a UUID derived
   * from the original id (the wire carries the original id, see {@link WireAttributes}), aggregate
   * type {@code unknown} when it has none, the payload and user headers as parked.
   */
  public OutboxMessage standIn() {
    InboxMessage m = message;
    UUID id = UUID.nameUUIDFromBytes(m.id().getBytes(StandardCharsets.UTF_8));
    return new OutboxMessage(row, id, m.aggregateType() == null ? "unknown" : m.aggregateType(), m.aggregateId(),
        m.sequence(), 0, m.type(), m.version(), m.payload() == null ? "null" : m.payload(),
        m.headers() == null ? Map.of() : m.headers(), m.correlationId(), m.causationId(), m.traceparent(), m.time(),
        parkedAt, attempts, m.source());
  }
}
