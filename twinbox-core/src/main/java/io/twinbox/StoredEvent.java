package io.twinbox;

import java.time.Instant;
import java.util.UUID;

/**
 * One outbox row as operators see it — without its payload, which may hold personal data.
 *
 * @param id the message id; {@code null} when the stored id is not a UUID (a row a plain-SQL writer
 *     stored on MariaDB, FAILED as undecodable: select it by aggregate, or fix the row)
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
