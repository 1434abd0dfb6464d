package io.twinbox.internal.memory;

import io.twinbox.spi.PreparedEvent;
import java.time.Instant;
import java.util.UUID;

/** One outbox row of the in-memory store: the columns of {@code twinbox_outbox}. Guarded by the store's monitor. */
public final class Row {
  /** The row's status column. */
  public enum Status { PENDING, PUBLISHED, FAILED }

  final long position;
  final UUID id;
  final String aggregateType;
  final String aggregateId;
  final long sequence;
  final int partition;
  final String type;
  final int version;
  final String payload;
  final String headersJson;
  final String correlationId;
  final String causationId;
  final String traceparent;
  final Instant occurredAt;
  final Instant createdAt;
  Status status = Status.PENDING;
  int attempts;
  Instant nextAttemptAt = Instant.MIN;
  String lastError;
  Instant publishedAt;
  /** The dead-letter state: null (none), {@code PENDING} or {@code SENT}, as the column {@code dead_letter}. */
  String deadLetter;
  Instant firstFailedAt;
  Instant lastFailedAt;
  /** Set by {@link MemoryOutbox#spoil}: why a claim cannot decode the row. */
  String spoiled;

  Row(long position, PreparedEvent e, long sequence, int partition, Instant createdAt) {
    this.position = position;
    this.id = e.id();
    this.aggregateType = e.event().aggregateType();
    this.aggregateId = e.event().ordered() ? e.event().aggregateId() : null;
    this.sequence = sequence;
    this.partition = partition;
    this.type = e.event().type();
    this.version = e.event().version();
    this.payload = e.event().payload();
    this.headersJson = e.headersJson();
    this.correlationId = e.event().correlationId();
    this.causationId = e.event().causationId();
    this.traceparent = e.traceparent();
    this.occurredAt = e.occurredAt();
    this.createdAt = createdAt;
  }

  public long position() {
    return position;
  }

  public UUID id() {
    return id;
  }

  public String aggregateType() {
    return aggregateType;
  }

  public String aggregateId() {
    return aggregateId;
  }

  public long sequence() {
    return sequence;
  }

  public int partition() {
    return partition;
  }

  public String type() {
    return type;
  }

  public int version() {
    return version;
  }

  public String payload() {
    return payload;
  }

  public Instant createdAt() {
    return createdAt;
  }

  public Status status() {
    return status;
  }

  public int attempts() {
    return attempts;
  }

  public Instant nextAttemptAt() {
    return nextAttemptAt;
  }

  public String lastError() {
    return lastError;
  }

  public Instant publishedAt() {
    return publishedAt;
  }

  public String deadLetter() {
    return deadLetter;
  }

  boolean holdsItsAggregate(Instant now) {
    return aggregateId != null
        && (status == Status.FAILED || (status == Status.PENDING && attempts > 0 && nextAttemptAt.isAfter(now)));
  }
}
