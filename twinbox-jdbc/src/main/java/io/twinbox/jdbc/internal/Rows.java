package io.twinbox.jdbc.internal;

import io.twinbox.internal.Headers;
import io.twinbox.spi.OutboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/** Maps result rows to SPI records. Column order is the claim query's. */
public final class Rows {
  private Rows() {}

  /**
   * @param utcDateTimes {@code true} when times are stored as UTC {@code DATETIME} (MariaDB),
   *     {@code false} for {@code timestamptz} (PostgreSQL)
   */
  public static OutboxMessage message(ResultSet rs, boolean utcDateTimes) throws SQLException {
    Object id = rs.getObject(2);
    return new OutboxMessage(
        rs.getLong(1),
        id instanceof UUID u ? u : UUID.fromString(id.toString()),
        rs.getString(3),
        rs.getString(4),
        rs.getLong(5),
        rs.getInt(6),
        rs.getString(7),
        rs.getInt(8),
        rs.getString(9),
        Headers.fromJson(rs.getString(10)),
        rs.getString(11),
        rs.getString(12),
        rs.getString(13),
        utcDateTimes ? utc(rs, 14) : instant(rs.getTimestamp(14)),
        utcDateTimes ? utc(rs, 15) : instant(rs.getTimestamp(15)),
        rs.getInt(16),
        null);
  }

  private static Instant utc(ResultSet rs, int column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
