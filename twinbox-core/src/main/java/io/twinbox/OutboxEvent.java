package io.twinbox;

import io.twinbox.internal.EventRules;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * An integration event: a small, versioned contract that other services depend on — never a
 * serialized entity. Built with {@link #builder(String, int)}; every rule is checked when the
 * record is created, so an {@code OutboxEvent} that exists is valid (the configurable payload size
 * limit is checked by {@link Outbox#write}).
 *
 * <ul>
 *   <li>{@code type} and {@code version}: the contract's name and version (CloudEvents {@code
 *       type}; the version travels in the {@code dataschema}-free extension {@code version}).
 *   <li>{@code aggregateType} and {@code aggregateId}: what changed. Events of one aggregate are
 *       published in commit order. Without an {@code aggregateId} the event is unordered.
 *   <li>{@code payload}: JSON text.
 *   <li>{@code id}: the message id; generated (UUIDv7) when not given.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public record OutboxEvent(
    UUID id,
    String type,
    int version,
    String aggregateType,
    String aggregateId,
    String payload,
    Map<String, String> headers,
    String correlationId,
    String causationId,
    String traceparent,
    Instant occurredAt) {

  public OutboxEvent {
    EventRules.checkEnvelope(type, version, aggregateType, aggregateId, correlationId, causationId, traceparent);
    if (payload == null) {
      throw new InvalidEventException("payload", "must not be null (use \"{}\" for an empty event)");
    }
    EventRules.requireJson("payload", payload);
    headers = EventRules.checkHeaders(headers);
  }

  /** True when the event belongs to an aggregate and therefore takes part in ordering. */
  public boolean ordered() {
    return aggregateId != null;
  }

  /**
   * Starts an event of the given contract.
   *
   * @param type the event type, e.g. {@code "OrderCreated"} (1–255 printable characters)
   * @param version the contract version, {@code >= 1}
   */
  public static Builder builder(String type, int version) {
    return new Builder(type, version);
  }

  /** Builds an {@link OutboxEvent}. Not thread-safe; validation happens in {@link #build()}. */
  public static final class Builder {
    private final String type;
    private final int version;
    private UUID id;
    private String aggregateType;
    private String aggregateId;
    private String payload;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String correlationId;
    private String causationId;
    private String traceparent;
    private Instant occurredAt;

    Builder(String type, int version) {
      this.type = type;
      this.version = version;
    }

    /** The aggregate the event belongs to; its events are published in commit order. */
    public Builder aggregate(String aggregateType, String aggregateId) {
      this.aggregateType = aggregateType;
      this.aggregateId = Objects.requireNonNull(aggregateId, "aggregateId cannot be null");
      return this;
    }

    /** An event without an aggregate: it is published in no particular order. */
    public Builder unordered(String aggregateType) {
      this.aggregateType = aggregateType;
      this.aggregateId = null;
      return this;
    }

    /** The payload as JSON text. */
    public Builder payload(String json) {
      this.payload = json;
      return this;
    }

    /** Sets the message id instead of generating a UUIDv7. It must be unique in the outbox. */
    public Builder id(UUID id) {
      this.id = id;
      return this;
    }

    /** Adds a header; names and values are validated in {@link #build()}. */
    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public Builder correlationId(String correlationId) {
      this.correlationId = correlationId;
      return this;
    }

    public Builder causationId(String causationId) {
      this.causationId = causationId;
      return this;
    }

    /** A W3C {@code traceparent}; when absent the current OpenTelemetry span (if any) is used. */
    public Builder traceparent(String traceparent) {
      this.traceparent = traceparent;
      return this;
    }

    /** When the fact happened; defaults to the time of the write. */
    public Builder occurredAt(Instant occurredAt) {
      this.occurredAt = occurredAt;
      return this;
    }

    public OutboxEvent build() {
      return new OutboxEvent(id, type, version, aggregateType, aggregateId, payload,
          Collections.unmodifiableMap(new LinkedHashMap<>(headers)), correlationId, causationId,
          traceparent, occurredAt);
    }
  }
}
