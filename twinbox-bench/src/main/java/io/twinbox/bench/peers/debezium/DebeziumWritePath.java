package io.twinbox.bench.peers.debezium;

import io.twinbox.bench.Payloads;
import io.twinbox.bench.write.WritePath;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * The write scenario's Debezium contender: the same business insert as the other paths, then the
 * event row in Debezium's outbox table and — with {@link Debezium.Writes#INSERT_DELETE}, as
 * Debezium's documentation recommends — its delete in the same transaction. Debezium has no write
 * API: this is what an application does with plain JDBC (or JPA). Event ids are UUIDv7, like the
 * library's, so that neither pays for a random primary-key insert.
 */
public final class DebeziumWritePath implements WritePath {
  private static final String INSERT_ORDER = "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)";

  private final Debezium.Writes writes;

  public DebeziumWritePath(Debezium.Writes writes) {
    this.writes = writes;
  }

  @Override
  public String name() {
    return writes.name();
  }

  @Override
  public String description() {
    return "INSERT orders + INSERT outbox (Debezium layout)" + (writes.deleteInTx() ? " + DELETE it, same tx" : "");
  }

  @Override
  public void write(Connection c, Order o) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
      ps.setString(1, o.customer());
      ps.setBigDecimal(2, BigDecimal.valueOf(o.cents(), 2));
      ps.setTimestamp(3, Timestamp.from(Instant.now()));
      ps.executeUpdate();
    }
    writeEvent(c, Payloads.uuidV7(), o.aggregateId(), o.payload(), writes.deleteInTx());
  }

  /** The outbox part alone, on a connection whose transaction is open. */
  static void writeEvent(Connection c, UUID id, String aggregateId, String payload, boolean delete)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(Debezium.INSERT)) {
      ps.setObject(1, id);
      ps.setString(2, "Order");
      ps.setString(3, aggregateId);
      ps.setString(4, "OrderCreated");
      ps.setString(5, payload);
      ps.executeUpdate();
    }
    if (delete) {
      try (PreparedStatement ps = c.prepareStatement(Debezium.DELETE)) {
        ps.setObject(1, id);
        ps.executeUpdate();
      }
    }
  }
}
