package io.twinbox.jdbc.internal;

import io.twinbox.InboxMessage;
import io.twinbox.spi.InboxMessageJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The ordering guard's statements (tables {@code twinbox_inbox_sequence} and {@code
 * twinbox_inbox_held}), executed, bound and mapped once for both dialects; each dialect supplies
 * the few fragments that differ. Part of the dialect layer: only dialects construct it.
 */
public final class InboxOrderSql {
  /**
   * What differs between databases.
   *
   * @param insertIfAbsent inserts {@code (consumer, aggregate_type, aggregate_id, last_sequence = 0)}
   *     unless the row exists (parameters: consumer, aggregate type, aggregate id)
   * @param now the database clock
   * @param olderThan a predicate on {@code held_at}: older than the bound age
   * @param ageInMicros {@code true} when {@code olderThan}'s parameter is microseconds, else milliseconds
   */
  public record Fragments(String insertIfAbsent, String now, String olderThan, boolean ageInMicros) {}

  private static final String LOCK = """
      SELECT last_sequence FROM twinbox_inbox_sequence
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? FOR UPDATE""";
  private static final String HOLD = """
      INSERT INTO twinbox_inbox_held (consumer, message_id, aggregate_type, aggregate_id, sequence, message)
      VALUES (?, ?, ?, ?, ?, ?)""";
  private static final String HELD = """
      SELECT message FROM twinbox_inbox_held
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? ORDER BY sequence""";
  private static final String RELEASE = "DELETE FROM twinbox_inbox_held WHERE consumer = ? AND message_id = ?";

  private final Fragments f;
  private final String setSql;
  private final String overdueSql;

  public InboxOrderSql(Fragments f) {
    this.f = f;
    this.setSql = "UPDATE twinbox_inbox_sequence SET last_sequence = ?, updated_at = " + f.now()
        + " WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?";
    this.overdueSql = "SELECT message FROM twinbox_inbox_held WHERE consumer = ? AND held_at < " + f.olderThan()
        + " ORDER BY held_at LIMIT ?";
  }

  public long lastSequence(Connection c, String consumer, String aggregateType, String aggregateId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(f.insertIfAbsent())) {
      bindKey(ps, 1, consumer, aggregateType, aggregateId);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(LOCK)) {
      bindKey(ps, 1, consumer, aggregateType, aggregateId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  public void setLastSequence(Connection c, String consumer, String aggregateType, String aggregateId, long sequence)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(setSql)) {
      ps.setLong(1, sequence);
      bindKey(ps, 2, consumer, aggregateType, aggregateId);
      ps.executeUpdate();
    }
  }

  public void hold(Connection c, String consumer, InboxMessage m) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(HOLD)) {
      ps.setString(1, consumer);
      ps.setString(2, m.id());
      ps.setString(3, m.aggregateType() == null ? "" : m.aggregateType());
      ps.setString(4, m.aggregateId());
      ps.setLong(5, m.sequence());
      ps.setString(6, InboxMessageJson.write(m));
      ps.executeUpdate();
    }
  }

  public List<InboxMessage> held(Connection c, String consumer, String aggregateType, String aggregateId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(HELD)) {
      bindKey(ps, 1, consumer, aggregateType, aggregateId);
      return messages(ps);
    }
  }

  /** @return whether the message was held (a row was deleted) */
  public boolean release(Connection c, String consumer, String messageId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RELEASE)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      return ps.executeUpdate() > 0;
    }
  }

  public List<InboxMessage> heldLongerThan(Connection c, String consumer, Duration age, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(overdueSql)) {
      ps.setString(1, consumer);
      ps.setLong(2, f.ageInMicros() ? age.toNanos() / 1_000 : age.toMillis());
      ps.setInt(3, limit);
      return messages(ps);
    }
  }

  private static void bindKey(PreparedStatement ps, int i, String consumer, String aggregateType, String aggregateId)
      throws SQLException {
    ps.setString(i, consumer);
    ps.setString(i + 1, aggregateType);
    ps.setString(i + 2, aggregateId);
  }

  private static List<InboxMessage> messages(PreparedStatement ps) throws SQLException {
    List<InboxMessage> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(InboxMessageJson.read(rs.getString(1)));
      }
    }
    return out;
  }
}
