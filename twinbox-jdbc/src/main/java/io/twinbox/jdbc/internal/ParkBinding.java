package io.twinbox.jdbc.internal;

import io.twinbox.spi.ParkedRow;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Binds a dialect's {@code INSERT INTO twinbox_inbox_parked} statements, whose column lists both
 * dialects share: the full row (17 parameters) and the minimal one (5). The row arrives already
 * fitted to the columns ({@link ParkedRow}).
 */
public final class ParkBinding {
  private ParkBinding() {}

  /** {@code consumer, message_id, type, version, source, aggregate_type, aggregate_id, sequence, payload, headers,
   * correlation_id, causation_id, traceparent, origin, payload_hash, reason, attempts}. */
  public static void bind(PreparedStatement ps, String consumer, ParkedRow row) throws SQLException {
    int i = 1;
    ps.setString(i++, consumer);
    ps.setString(i++, row.messageId());
    ps.setString(i++, row.type());
    ps.setInt(i++, row.version());
    ps.setString(i++, row.source());
    ps.setString(i++, row.aggregateType());
    ps.setString(i++, row.aggregateId());
    ps.setLong(i++, row.sequence());
    ps.setString(i++, row.payload());
    ps.setString(i++, row.headersJson());
    ps.setString(i++, row.correlationId());
    ps.setString(i++, row.causationId());
    ps.setString(i++, row.traceparent());
    ps.setString(i++, row.origin());
    ps.setString(i++, row.payloadHash());
    ps.setString(i++, row.reason());
    ps.setInt(i, row.attempts());
  }

  /** {@code consumer, message_id, payload_hash, reason, attempts}: what always fits. */
  public static void bindMinimal(PreparedStatement ps, String consumer, ParkedRow row) throws SQLException {
    ps.setString(1, consumer);
    ps.setString(2, row.messageId());
    if (row.payloadHash() == null) {
      ps.setNull(3, Types.CHAR);
    } else {
      ps.setString(3, row.payloadHash());
    }
    ps.setString(4, row.reason());
    ps.setInt(5, row.attempts());
  }

  /** {@code consumer, message_id, payload_hash} of the inbox record that keeps a parked message from running. */
  public static void bindRecord(PreparedStatement ps, String consumer, ParkedRow row) throws SQLException {
    ps.setString(1, consumer);
    ps.setString(2, row.messageId());
    ps.setString(3, row.payloadHash());
  }
}
