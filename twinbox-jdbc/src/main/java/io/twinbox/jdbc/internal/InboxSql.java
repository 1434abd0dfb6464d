package io.twinbox.jdbc.internal;

import io.twinbox.spi.ParkedRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

  private static final String ATTEMPTS = """
      SELECT message_id, attempts FROM twinbox_inbox_attempt WHERE consumer = ? AND message_id IN (%s)""";
  private static final String CLEAR_ATTEMPTS_OF = """
      DELETE FROM twinbox_inbox_attempt WHERE consumer = ? AND message_id IN (%s)""";
  /** Ids per statement: far below both databases' limits on parameters. */
  private static final int CHUNK = 1_000;

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

  /** The attempt counters of these messages; one without a counter is absent. */
  public Map<String, Integer> attempts(Connection c, String consumer, List<String> ids) throws SQLException {
    Map<String, Integer> out = new HashMap<>();
    for (int from = 0; from < ids.size(); from += CHUNK) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
      try (PreparedStatement ps = c.prepareStatement(ATTEMPTS.formatted(Rows.marks(chunk.size())))) {
        bindConsumerAndIds(ps, consumer, chunk);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), rs.getInt(2));
          }
        }
      }
    }
    return out;
  }

  public void clearAttempts(Connection c, String consumer, List<String> ids) throws SQLException {
    for (int from = 0; from < ids.size(); from += CHUNK) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
      try (PreparedStatement ps = c.prepareStatement(CLEAR_ATTEMPTS_OF.formatted(Rows.marks(chunk.size())))) {
        bindConsumerAndIds(ps, consumer, chunk);
        ps.executeUpdate();
      }
    }
  }

  private static void bindConsumerAndIds(PreparedStatement ps, String consumer, List<String> ids) throws SQLException {
    ps.setString(1, consumer);
    int i = 2;
    for (String id : ids) {
      ps.setString(i++, id);
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
