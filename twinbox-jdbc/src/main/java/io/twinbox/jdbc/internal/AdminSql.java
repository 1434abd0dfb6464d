package io.twinbox.jdbc.internal;

import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The operator statements, written once in the SQL both dialects share; each dialect supplies its
 * few differing fragments (the clock, the "long ago" timestamp, how times and ids are typed).
 * Part of the dialect layer: only dialects construct it.
 */
public final class AdminSql {
  /** What differs between databases in these statements. */
  public record Fragments(String now, String longAgo, String ageMillis, boolean utcDateTimes, boolean uuidType) {}

  private final Fragments f;
  private final String statusSql;
  private final String oldestSql;
  private final String leasesSql;
  private final String troubledSql;
  private final String purgeSql;

  public AdminSql(Fragments f, String purgeSql) {
    this.f = f;
    this.purgeSql = purgeSql;
    this.statusSql = """
        SELECT (SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'),
               (SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING' AND attempts > 0),
               (SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'),
               (SELECT count(*) FROM (SELECT DISTINCT aggregate_type, aggregate_id FROM twinbox_outbox
                  WHERE aggregate_id IS NOT NULL AND (status = 'FAILED' OR (status = 'PENDING' AND attempts > 0))) h)""";
    this.oldestSql = "SELECT " + f.ageMillis().formatted("created_at")
        + " FROM twinbox_outbox WHERE status = 'PENDING' ORDER BY position LIMIT 1";
    this.leasesSql = "SELECT owner, count(*) FROM twinbox_relay_lease WHERE owner IS NOT NULL AND lease_until > "
        + f.now() + " GROUP BY owner";
    this.troubledSql = """
        SELECT position, id, aggregate_type, aggregate_id, sequence, type, version, status, attempts, last_error,
               created_at, next_attempt_at
          FROM twinbox_outbox
         WHERE (status = 'FAILED' OR (status = 'PENDING' AND attempts > 0))
           AND (? IS NULL OR type = ?) AND (? IS NULL OR aggregate_type = ?) AND (? IS NULL OR aggregate_id = ?)
         ORDER BY position
         LIMIT ?""";
  }

  public OutboxStatus status(Connection c, int partitions) throws SQLException {
    long pending;
    long retrying;
    long failed;
    long held;
    try (PreparedStatement ps = c.prepareStatement(statusSql); ResultSet rs = ps.executeQuery()) {
      rs.next();
      pending = rs.getLong(1);
      retrying = rs.getLong(2);
      failed = rs.getLong(3);
      held = rs.getLong(4);
    }
    long oldestMillis = 0;
    try (PreparedStatement ps = c.prepareStatement(oldestSql); ResultSet rs = ps.executeQuery()) {
      if (rs.next()) {
        oldestMillis = Math.max(0, rs.getLong(1));
      }
    }
    Map<String, Integer> owners = new LinkedHashMap<>();
    int owned = 0;
    try (PreparedStatement ps = c.prepareStatement(leasesSql); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        owners.put(rs.getString(1), rs.getInt(2));
        owned += rs.getInt(2);
      }
    }
    return new OutboxStatus(pending, retrying, failed, held, Duration.ofMillis(oldestMillis), owners, partitions - owned);
  }

  public List<StoredEvent> troubled(Connection c, String type, String aggregateType, String aggregateId, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(troubledSql)) {
      int i = 1;
      for (String v : new String[] {type, aggregateType, aggregateId}) {
        ps.setString(i++, v);
        ps.setString(i++, v);
      }
      ps.setInt(i, limit);
      List<StoredEvent> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Object id = rs.getObject(2);
          out.add(new StoredEvent(rs.getLong(1), id instanceof UUID u ? u : UUID.fromString(id.toString()),
              rs.getString(3), rs.getString(4), rs.getLong(5), rs.getString(6), rs.getInt(7), rs.getString(8),
              rs.getInt(9), rs.getString(10), time(rs, 11), time(rs, 12)));
        }
      }
      return out;
    }
  }

  public int retry(Connection c, EventSelector s) throws SQLException {
    return run(c, "UPDATE twinbox_outbox SET status = 'PENDING', attempts = 0, next_attempt_at = " + f.longAgo()
        + " WHERE status = 'FAILED'", s);
  }

  public int skip(Connection c, EventSelector s) throws SQLException {
    return run(c, "DELETE FROM twinbox_outbox WHERE status = 'FAILED'", s);
  }

  public int purgePublished(Connection c, Duration age, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
      ps.setLong(1, age.toMillis());
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }

  private int run(Connection c, String base, EventSelector s) throws SQLException {
    String sql = base;
    if (s.id() != null) {
      sql += " AND id = ?";
    } else if (s.aggregateType() != null) {
      sql += " AND aggregate_type = ? AND aggregate_id = ?";
    } else if (!s.all()) {
      throw new IllegalArgumentException("a selector needs an id, an aggregate, or all");
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (s.id() != null) {
        if (f.uuidType()) {
          ps.setObject(1, s.id());
        } else {
          ps.setString(1, s.id().toString());
        }
      } else if (s.aggregateType() != null) {
        ps.setString(1, s.aggregateType());
        ps.setString(2, s.aggregateId());
      }
      return ps.executeUpdate();
    }
  }

  private Instant time(ResultSet rs, int column) throws SQLException {
    if (f.utcDateTimes()) {
      LocalDateTime t = rs.getObject(column, LocalDateTime.class);
      return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
