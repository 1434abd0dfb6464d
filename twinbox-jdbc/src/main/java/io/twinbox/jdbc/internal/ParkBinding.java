package io.twinbox.jdbc.internal;

import io.twinbox.InboxMessage;
import io.twinbox.internal.Headers;
import io.twinbox.internal.Reasons;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Binds the 17 parameters of a dialect's {@code INSERT INTO twinbox_inbox_parked} statement, whose
 * column list both dialects share.
 */
public final class ParkBinding {
  private ParkBinding() {}

  public static void bind(PreparedStatement ps, String consumer, InboxMessage m, String hash, String reason,
      int attempts) throws SQLException {
    int i = 1;
    ps.setString(i++, consumer);
    ps.setString(i++, m.id());
    ps.setString(i++, m.type());
    ps.setInt(i++, m.version());
    ps.setString(i++, m.source());
    ps.setString(i++, m.aggregateType());
    ps.setString(i++, m.aggregateId());
    ps.setLong(i++, m.sequence());
    ps.setString(i++, m.payload());
    ps.setString(i++, Headers.toJson(m.headers()));
    ps.setString(i++, m.correlationId());
    ps.setString(i++, m.causationId());
    ps.setString(i++, m.traceparent());
    ps.setString(i++, m.origin());
    ps.setString(i++, hash);
    ps.setString(i++, Reasons.clip(reason));
    ps.setInt(i, attempts);
  }
}
