package io.twinbox.jdbc.internal;

import io.twinbox.internal.Headers;
import io.twinbox.spi.OutboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/** Maps result rows to SPI records. Column order is the claim query's. */
public final class Rows {
  private Rows() {}

  public static OutboxMessage message(ResultSet rs) throws SQLException {
    return new OutboxMessage(
        rs.getLong(1),
        rs.getObject(2, UUID.class),
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
        instant(rs.getTimestamp(14)),
        instant(rs.getTimestamp(15)),
        rs.getInt(16),
        null);
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
