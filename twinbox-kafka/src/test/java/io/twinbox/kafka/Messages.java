package io.twinbox.kafka;

import io.twinbox.spi.OutboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** Outbox messages for tests. */
final class Messages {
  static final Instant OCCURRED_AT = Instant.parse("2025-03-01T10:15:30.123456Z");
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private Messages() {}

  /** An ordered message with every optional field set. */
  static OutboxMessage full(String aggregateType, String aggregateId, long sequence) {
    return new OutboxMessage(7, UUID.fromString("0195a3c4-1111-7abc-8def-0123456789ab"), aggregateType,
        aggregateId, sequence, 3, "com.example.OrderCreated", 2, "{\"total\":42,\"note\":\"naïve\"}",
        Map.of("tenant", "acme", "x-region", "eu-west"), "corr-1", "cause-1", TRACEPARENT,
        OCCURRED_AT, OCCURRED_AT.plusMillis(5), 0, "/orders-service");
  }

  /** An unordered message with no optional field set and no source. */
  static OutboxMessage minimal(String aggregateType) {
    return new OutboxMessage(8, UUID.randomUUID(), aggregateType, null, 0, 0, "com.example.Ping", 1, "{}",
        Map.of(), null, null, null, OCCURRED_AT, OCCURRED_AT, 0, null);
  }

  /** An ordered message whose payload is a JSON string of {@code payloadBytes} characters. */
  static OutboxMessage withPayloadSize(String aggregateType, int payloadBytes) {
    String payload = "\"" + "x".repeat(payloadBytes - 2) + "\"";
    return new OutboxMessage(9, UUID.randomUUID(), aggregateType, "big-1", 1, 0, "com.example.Big", 1, payload,
        Map.of(), null, null, null, OCCURRED_AT, OCCURRED_AT, 0, "/twinbox");
  }
}
