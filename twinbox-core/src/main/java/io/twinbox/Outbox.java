package io.twinbox;

import io.twinbox.internal.DefaultOutbox;
import io.twinbox.spi.OutboxStore;
import java.sql.Connection;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes integration events in the caller's database transaction, so that they are published if
 * and only if the business change commits.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(store).build();
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   insertOrder(c, order);
 *   outbox.write(c, OutboxEvent.builder("OrderCreated", 1)
 *       .aggregate("Order", order.id()).payload(json).build());
 *   c.commit();
 * }
 * }</pre>
 *
 * <p>Thread-safe: one instance serves the whole application.
 */
public interface Outbox {

  /**
   * Writes one event on {@code connection}, inside its current transaction.
   *
   * @return the event's message id
   * @throws NoActiveTransactionException if the connection is in auto-commit mode
   * @throws InvalidEventException if the payload exceeds the configured limit
   * @throws DuplicateMessageIdException if a caller-supplied id is already stored
   * @throws SchemaNotMigratedException if the Twinbox tables are missing
   */
  UUID write(Connection connection, OutboxEvent event);

  /** Writes several events in one round trip; ids are returned in the same order. */
  List<UUID> writeAll(Connection connection, List<OutboxEvent> events);

  /** The effective settings. */
  OutboxConfig config();

  /** Starts a builder over the given store. */
  static Builder builder(OutboxStore store) {
    return new Builder(store);
  }

  /** The effective, immutable settings of an {@link Outbox}. */
  record OutboxConfig(int maxPayloadBytes, boolean captureTraceContext) {}

  /** Configures an {@link Outbox}; defaults and limits are those of {@link OutboxSettings}. Not thread-safe. */
  final class Builder {
    /** Default payload limit: leaves room for headers under Kafka's 1 MiB default request size. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 900 * 1024;

    private final OutboxStore store;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private boolean captureTraceContext = OutboxSettings.CAPTURE_TRACE_CONTEXT.defaultValue();
    private Clock clock = Clock.systemUTC();

    Builder(OutboxStore store) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
    }

    /** Largest payload accepted, in UTF-8 bytes. Default {@value #DEFAULT_MAX_PAYLOAD_BYTES}. */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = OutboxSettings.MAX_PAYLOAD_BYTES.check(maxPayloadBytes);
      return this;
    }

    /**
     * Whether to take the W3C trace context from the current OpenTelemetry span when the event
     * carries none ({@link OutboxSettings#CAPTURE_TRACE_CONTEXT}); a no-op when the OpenTelemetry API
     * is absent.
     */
    public Builder captureTraceContext(boolean capture) {
      this.captureTraceContext = capture;
      return this;
    }

    /** The clock for {@code occurredAt} defaults. Default: the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    public Outbox build() {
      return new DefaultOutbox(store, new OutboxConfig(maxPayloadBytes, captureTraceContext), clock);
    }
  }
}
