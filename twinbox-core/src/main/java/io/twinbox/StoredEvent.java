package io.twinbox;

import java.time.Instant;
import java.util.UUID;

/**
 * One outbox row as operators see it — without its payload, which may hold personal data.
 *
 * @param status {@code PENDING}, {@code PUBLISHED} or {@code FAILED}
 * @param lastError the last publish failure, {@code null} if none
 */
public record StoredEvent(
    long position,
    UUID id,
    String aggregateType,
    String aggregateId,
    long sequence,
    String type,
    int version,
    String status,
    int attempts,
    String lastError,
    Instant createdAt,
    Instant nextAttemptAt) {}
