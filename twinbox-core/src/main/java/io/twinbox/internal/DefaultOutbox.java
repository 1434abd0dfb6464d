package io.twinbox.internal;

import io.twinbox.InvalidEventException;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.StoreException;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PreparedEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/** The {@link Outbox}: validates, prepares, and hands events to the store. Thread-safe. */
public final class DefaultOutbox implements Outbox {
  private final OutboxStore store;
  private final OutboxConfig config;
  private final Clock clock;

  public DefaultOutbox(OutboxStore store, OutboxConfig config, Clock clock) {
    this.store = store;
    this.config = config;
    this.clock = clock;
  }

  @Override
  public UUID write(Connection connection, OutboxEvent event) {
    return writeAll(connection, List.of(event)).get(0);
  }

  @Override
  public List<UUID> writeAll(Connection connection, List<OutboxEvent> events) {
    Objects.requireNonNull(connection, "connection cannot be null");
    Objects.requireNonNull(events, "events cannot be null");
    requireTransaction(connection);
    if (events.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    String ambientTrace = config.captureTraceContext() ? TraceContext.currentTraceparent() : null;
    List<PreparedEvent> prepared = new ArrayList<>(events.size());
    List<UUID> ids = new ArrayList<>(events.size());
    Set<UUID> seen = new HashSet<>();
    for (int i = 0; i < events.size(); i++) {
      OutboxEvent e = Objects.requireNonNull(events.get(i), "events[" + i + "] cannot be null");
      checkPayloadSize(e);
      UUID id = e.id() != null ? e.id() : UuidV7.next();
      if (!seen.add(id)) {
        throw new InvalidEventException("id", "message id " + id + " appears twice in one write");
      }
      String trace = e.traceparent() != null ? e.traceparent() : ambientTrace;
      Instant occurred = e.occurredAt() != null ? e.occurredAt() : now;
      prepared.add(new PreparedEvent(id, e, trace, occurred, Headers.toJson(e.headers())));
      ids.add(id);
    }
    store.append(connection, prepared);
    return List.copyOf(ids);
  }

  private void checkPayloadSize(OutboxEvent e) {
    String payload = e.payload();
    // Cheap upper bound first: a UTF-8 char takes at most 3 bytes per UTF-16 unit.
    if ((long) payload.length() * 3 <= config.maxPayloadBytes()) {
      return;
    }
    int bytes = payload.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > config.maxPayloadBytes()) {
      throw new InvalidEventException("payload",
          "is " + bytes + " bytes, limit " + config.maxPayloadBytes() + " (Outbox.Builder.maxPayloadBytes)");
    }
  }

  private static void requireTransaction(Connection connection) {
    try {
      if (connection.getAutoCommit()) {
        throw new NoActiveTransactionException("outbox write");
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the connection's auto-commit mode", e);
    }
  }

  @Override
  public OutboxConfig config() {
    return config;
  }
}
