package io.twinbox;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A message as a consumer receives it, decoded from the broker's CloudEvent by a consumer adapter.
 *
 * @param id the message id (CloudEvents {@code id}); the inbox's key together with the consumer
 * @param type the event type
 * @param version the contract version ({@code dataversion}), 1 when absent
 * @param source the producing service
 * @param aggregateType the aggregate type, may be {@code null}
 * @param aggregateId the aggregate id ({@code subject}), {@code null} for unordered events
 * @param sequence the per-aggregate sequence, 0 when absent
 * @param payload the data as JSON text
 * @param headers user headers
 * @param correlationId may be {@code null}
 * @param causationId may be {@code null}
 * @param traceparent may be {@code null}
 * @param time when the fact happened, may be {@code null}
 * @param origin where it came from, for operators (e.g. {@code orders-3@1234}); may be {@code null}
 */
public record InboxMessage(
    String id,
    String type,
    int version,
    String source,
    String aggregateType,
    String aggregateId,
    long sequence,
    String payload,
    Map<String, String> headers,
    String correlationId,
    String causationId,
    String traceparent,
    Instant time,
    String origin) {

  public InboxMessage {
    if (id == null || id.isBlank()) {
      throw new InvalidEventException("id", "a consumed message needs a non-blank id");
    }
    if (id.length() > 255) {
      throw new InvalidEventException("id", "is " + id.length() + " characters, limit 255");
    }
    Objects.requireNonNull(type, "type cannot be null");
    payload = payload == null ? "" : payload;
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }
}
