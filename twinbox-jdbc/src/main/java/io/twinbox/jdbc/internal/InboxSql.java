package io.twinbox.jdbc.internal;

import io.twinbox.spi.ParkedRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The inbox statements both dialects run the same way — park (full and minimal, each also recording
 * the message), clear attempts, purge — executed and bound once; each dialect supplies the texts
 * that differ (PostgreSQL's {@code jsonb} cast and {@code ON CONFLICT}, MariaDB's {@code INSERT
 * IGNORE} and {@code LIMIT}). Part of the dialect layer: only dialects construct it.
 */
public final class InboxSql {
  /**
   * What differs between databases.
   *
   * @param park the full parked row (parameters as {@link ParkBinding#bind})
   * @param markParked records the parked message in the inbox unless it is (parameters as {@link
   *     ParkBinding#bindRecord})
   * @param purge deletes up to ? inbox records older than ? (parameters: age, limit)
   * @param purgeAgeInMicros {@code true} when {@code purge}'s age is microseconds, else milliseconds
   */
  public record Fragments(String park, String markParked, String purge, boolean purgeAgeInMicros) {}

  private static final String PARK_MINIMAL = """
      INSERT INTO twinbox_inbox_parked (consumer, message_id, payload_hash, reason, attempts) VALUES (?, ?, ?, ?, ?)""";
  private static final String CLEAR_ATTEMPTS = "DELETE FROM twinbox_inbox_attempt WHERE consumer = ? AND message_id = ?";

  private final Fragments f;

  public InboxSql(Fragments f) {
    this.f = f;
  }

  public void park(Connection c, String consumer, ParkedRow row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(f.park())) {
      ParkBinding.bind(ps, consumer, row);
      ps.executeUpdate();
    }
    markParked(c, consumer, row);
  }

  public void parkMinimal(Connection c, String consumer, ParkedRow row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PARK_MINIMAL)) {
      ParkBinding.bindMinimal(ps, consumer, row);
      ps.executeUpdate();
    }
    markParked(c, consumer, row);
  }

  private void markParked(Connection c, String consumer, ParkedRow row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(f.markParked())) {
      ParkBinding.bindRecord(ps, consumer, row);
      ps.executeUpdate();
    }
  }

  public void clearAttempts(Connection c, String consumer, String messageId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CLEAR_ATTEMPTS)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.executeUpdate();
    }
  }

  public int purge(Connection c, Duration age, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(f.purge())) {
      ps.setLong(1, f.purgeAgeInMicros() ? age.toNanos() / 1_000 : age.toMillis());
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }
}
