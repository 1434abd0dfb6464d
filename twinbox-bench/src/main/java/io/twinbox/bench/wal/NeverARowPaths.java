package io.twinbox.bench.wal;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.bench.write.WritePath;
import io.twinbox.bench.write.WritePaths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The write paths of the "never a row" question (issue 15): what a business transaction costs when
 * its event goes only to the WAL, against the business insert alone and the library's write. Raw
 * SQL, not a library mode: it measures the candidates before one is built.
 *
 * <ul>
 *   <li>{@code row-insert-delete}: the library's statement (counter upsert + row), then {@code DELETE}
 *       of the row in the same transaction — the row never becomes visible, the WAL keeps the insert.
 *   <li>{@code emit-message-counter}: the per-aggregate counter upsert (the sequence the relay orders
 *       by), then {@code pg_logical_emit_message(true, 'twinbox', …)} with the event — no outbox row.
 *   <li>{@code emit-message}: only {@code pg_logical_emit_message}: no row, no counter (order is then
 *       commit order only; no per-aggregate sequence).
 * </ul>
 */
final class NeverARowPaths {
  private NeverARowPaths() {}

  private static final String INSERT_ROW = """
      WITH s AS (
        INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence) VALUES ('Order', ?, 1)
        ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
        RETURNING last_sequence)
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  occurred_at)
      SELECT ?, 'Order', ?, s.last_sequence, 'OrderCreated', 1, ?::jsonb, '{}'::jsonb, ? FROM s""";

  private static final String DELETE_ROW = "DELETE FROM twinbox_outbox WHERE id = ?";

  private static final String COUNTER = """
      INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence) VALUES ('Order', ?, 1)
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
      RETURNING last_sequence""";

  private static final String EMIT = "SELECT pg_logical_emit_message(true, 'twinbox', ?)";

  static List<WritePath> all(Outbox outbox) {
    return List.of(WritePaths.businessOnly(), WritePaths.twinbox(outbox), rowInsertDelete(), emitMessage(true),
        emitMessage(false));
  }

  static WritePath rowInsertDelete() {
    return new WritePath() {
      @Override
      public String name() {
        return "row-insert-delete";
      }

      @Override
      public String description() {
        return "INSERT orders + outbox row with counter CTE + DELETE of that row, one transaction";
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        Instant now = Instant.now();
        WritePaths.insertOrder(c, o, Timestamp.from(now));
        UUID id = UUID.randomUUID();
        try (PreparedStatement ps = c.prepareStatement(INSERT_ROW)) {
          ps.setString(1, o.aggregateId());
          ps.setObject(2, id);
          ps.setString(3, o.aggregateId());
          ps.setString(4, o.payload());
          ps.setTimestamp(5, Timestamp.from(now));
          ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(DELETE_ROW)) {
          ps.setObject(1, id);
          ps.executeUpdate();
        }
      }
    };
  }

  static WritePath emitMessage(boolean counter) {
    return new WritePath() {
      @Override
      public String name() {
        return counter ? "emit-message-counter" : "emit-message";
      }

      @Override
      public String description() {
        return "INSERT orders + " + (counter ? "counter upsert + " : "") + "pg_logical_emit_message(true, ...)";
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        WritePaths.insertOrder(c, o, Timestamp.from(Instant.now()));
        long sequence = 0;
        if (counter) {
          try (PreparedStatement ps = c.prepareStatement(COUNTER)) {
            ps.setString(1, o.aggregateId());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              sequence = rs.getLong(1);
            }
          }
        }
        try (PreparedStatement ps = c.prepareStatement(EMIT)) {
          ps.setString(1, "{\"id\":\"" + UUID.randomUUID() + "\",\"aggregate\":\"" + o.aggregateId()
              + "\",\"sequence\":" + sequence + ",\"type\":\"OrderCreated\",\"payload\":" + o.payload() + "}");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
          }
        }
      }
    };
  }
}
