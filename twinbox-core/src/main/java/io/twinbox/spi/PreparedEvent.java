package io.twinbox.spi;

import io.twinbox.OutboxEvent;
import java.time.Instant;
import java.util.UUID;

/**
 * An event ready to be stored: validated, with its message id, trace context, write time and
 * headers (as a JSON object) fixed by the {@code Outbox}. The store adds the partition and the
 * per-aggregate sequence in the writing transaction.
 */
public record PreparedEvent(UUID id, OutboxEvent event, String traceparent, Instant occurredAt, String headersJson) {}
