package io.twinbox.it;

import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * What the jOOQ and Hibernate tests share: a migrated store on a fresh {@link TestDb}, the outbox,
 * and a full drain through a relay on the recording transport. Not thread-safe; one per test class.
 */
final class FrameworkOutbox implements AutoCloseable {
  final TestDb db = TestDb.create();
  final JdbcStore store = TestDb.store(db.dataSource());
  final Outbox outbox;

  FrameworkOutbox() {
    store.migrate();
    outbox = Outbox.builder(store).build();
  }

  /** An {@code OrderPlaced} event of order {@code orderId}. */
  static OutboxEvent orderPlaced(String orderId) {
    return OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", orderId)
        .payload("{\"orderId\":\"" + orderId + "\"}").build();
  }

  /**
   * Runs a relay until the store reports nothing pending, then stops it: every committed event has
   * then been acknowledged. Published rows are kept, marked PUBLISHED. Returns the ids of everything the relay published.
   */
  Set<UUID> drain() {
    RecordingTransport transport = RecordingTransport.acking();
    try (Relay relay = Relay.builder(store, transport).pollInterval(Duration.ofMillis(50))
        .completionMode(CompletionMode.MARK).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> store.status().pending() == 0);
    }
    return transport.acked().stream().map(OutboxMessage::id).collect(Collectors.toSet());
  }

  /** The ids of the outbox table's rows in {@code status} (the drain keeps published rows, marked). */
  Set<UUID> outboxIds(String status) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM twinbox_outbox WHERE status = '" + status + "'")) {
      while (rs.next()) {
        ids.add(UUID.fromString(rs.getString(1)));
      }
    }
    return ids;
  }

  /** How many rows the business table {@code table} holds. */
  long count(String table) throws SQLException {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
