package io.twinbox.jdbc.internal;

import io.twinbox.HeldAggregate;
import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
  /**
   * What differs between databases in these statements.
   *
   * @param olderThan the database time {@code ?} milliseconds ago (one parameter)
   */
  public record Fragments(String now, String longAgo, String ageMillis, String olderThan, boolean utcDateTimes,
      boolean uuidType) {}

  private static final String COLUMNS = """
      position, id, aggregate_type, aggregate_id, sequence, type, version, status, attempts, last_error,
             created_at, next_attempt_at""";

  /** Every column of twinbox_outbox, in the order of twinbox_outbox_archive (which adds archived_at). */
  public static final String ARCHIVE_COLUMNS = """
      position, id, aggregate_type, aggregate_id, sequence, partition_no, type, version, payload, headers,
      correlation_id, causation_id, traceparent, occurred_at, created_at, status, attempts, next_attempt_at,
      last_error, published_at, dead_letter, first_failed_at, last_failed_at""";

  /**
   * How a dialect moves one batch of PUBLISHED rows to twinbox_outbox_archive, atomically. Either
   * {@code move}: one statement (parameters: age in ms, limit) that deletes and inserts; or {@code
   * lock}: selects the positions of up to ? due rows locking them (parameters: age in ms, limit),
   * after which the rows of those positions are copied and deleted in the same transaction.
   */
  public record Archive(String move, String lock) {}

  private final Fragments f;
  private Archive archive;
  private final String statusSql;
  private final String oldestSql;
  private final String leasesSql;
  private final String troubledSql;
  private final String heldSql;
  private final String pendingSql;
  private final String countPublishedSql;
  private final String purgeSql;
  private final String purgeSuppliedIdsSql;

  /**
   * @param purgeSql deletes up to ? PUBLISHED rows older than ? ms (parameters: age, limit)
   * @param purgeSuppliedIdsSql the same for the supplied-id ledger (parameters: age in ms, limit)
   */
  public AdminSql(Fragments f, String purgeSql, String purgeSuppliedIdsSql) {
    this.f = f;
    this.purgeSql = purgeSql;
    this.purgeSuppliedIdsSql = purgeSuppliedIdsSql;
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
    this.troubledSql = "SELECT " + COLUMNS + """

          FROM twinbox_outbox
         WHERE (status = 'FAILED' OR (status = 'PENDING' AND attempts > 0))
           AND (? IS NULL OR type = ?) AND (? IS NULL OR aggregate_type = ?) AND (? IS NULL OR aggregate_id = ?)
         ORDER BY position
         LIMIT ?""";
    // The earliest troubled row of each aggregate: no troubled row of lower sequence (the held index).
    this.heldSql = "SELECT " + COLUMNS + """

          FROM twinbox_outbox h
         WHERE h.aggregate_id IS NOT NULL AND (h.status = 'FAILED' OR (h.status = 'PENDING' AND h.attempts > 0))
           AND (? IS NULL OR h.aggregate_type = ?)
           AND NOT EXISTS (SELECT 1 FROM twinbox_outbox e
                            WHERE e.aggregate_type = h.aggregate_type AND e.aggregate_id = h.aggregate_id
                              AND (e.status = 'FAILED' OR (e.status = 'PENDING' AND e.attempts > 0))
                              AND e.sequence < h.sequence)
         ORDER BY h.position
         LIMIT ?""";
    // Keyset paging on the pending index: a deep page costs what the first one does.
    this.pendingSql = "SELECT " + COLUMNS + """

          FROM twinbox_outbox
         WHERE status = 'PENDING' AND position > ?
           AND (? IS NULL OR type = ?) AND (? IS NULL OR aggregate_type = ?) AND (? IS NULL OR aggregate_id = ?)
           AND created_at <= """ + f.olderThan() + """

         ORDER BY position
         LIMIT ?""";
    this.countPublishedSql = "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED' AND published_at < "
        + f.olderThan();
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
      return events(ps);
    }
  }

  /** Runs {@code ps}, whose columns are {@link #COLUMNS}. */
  private List<StoredEvent> events(PreparedStatement ps) throws SQLException {
    List<StoredEvent> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new StoredEvent(rs.getLong(1), uuidOrNull(rs.getObject(2)),
            rs.getString(3), rs.getString(4), rs.getLong(5), rs.getString(6), rs.getInt(7), rs.getString(8),
            rs.getInt(9), rs.getString(10), time(rs, 11), time(rs, 12)));
      }
    }
    return out;
  }

  public List<HeldAggregate> heldAggregates(Connection c, String aggregateType, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(heldSql)) {
      ps.setString(1, aggregateType);
      ps.setString(2, aggregateType);
      ps.setInt(3, limit);
      List<HeldAggregate> out = new ArrayList<>();
      for (StoredEvent e : events(ps)) {
        out.add(new HeldAggregate(e.aggregateType(), e.aggregateId(), e, e.createdAt()));
      }
      return out;
    }
  }

  public List<StoredEvent> pending(Connection c, PendingQuery q) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(pendingSql)) {
      int i = 1;
      ps.setLong(i++, q.afterPosition());
      for (String v : new String[] {q.type(), q.aggregateType(), q.aggregateId()}) {
        ps.setString(i++, v);
        ps.setString(i++, v);
      }
      ps.setLong(i++, q.olderThan().toMillis());
      ps.setInt(i, q.limit());
      return events(ps);
    }
  }

  public long countPublished(Connection c, Duration age) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(countPublishedSql)) {
      ps.setLong(1, age.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
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
    return purge(c, purgeSql, age, limit);
  }

  /** Sets how this dialect archives; without it {@link #archivePublished} is unsupported. */
  public AdminSql archive(Archive archive) {
    this.archive = archive;
    return this;
  }

  /**
   * Moves up to {@code limit} PUBLISHED rows older than {@code age} to twinbox_outbox_archive; the
   * caller's transaction makes the batch all or nothing. Returns the rows moved.
   */
  public int archivePublished(Connection c, Duration age, int limit) throws SQLException {
    if (archive == null) {
      throw new UnsupportedOperationException("this dialect has no outbox archive");
    }
    if (archive.move() != null) {
      return purge(c, archive.move(), age, limit);
    }
    List<Long> positions = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(archive.lock())) {
      ps.setLong(1, age.toMillis());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          positions.add(rs.getLong(1));
        }
      }
    }
    if (positions.isEmpty()) {
      return 0;
    }
    String in = " WHERE position IN (" + "?,".repeat(positions.size() - 1) + "?)";
    int copied = byPositions(c, "INSERT INTO twinbox_outbox_archive (" + ARCHIVE_COLUMNS + ") SELECT "
        + ARCHIVE_COLUMNS + " FROM twinbox_outbox" + in, positions);
    int deleted = byPositions(c, "DELETE FROM twinbox_outbox" + in, positions);
    if (copied != deleted) {
      throw new SQLException("archive batch copied " + copied + " rows but deleted " + deleted + "; rolled back");
    }
    return deleted;
  }

  private static int byPositions(Connection c, String sql, List<Long> positions) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < positions.size(); i++) {
        ps.setLong(i + 1, positions.get(i));
      }
      return ps.executeUpdate();
    }
  }

  /** Rows in twinbox_outbox_archive. */
  public long countArchived(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM twinbox_outbox_archive");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Archived rows of one aggregate in sequence order (every aggregate when {@code aggregateType} is null). */
  public List<StoredEvent> archived(Connection c, String aggregateType, String aggregateId, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + """

          FROM twinbox_outbox_archive
         WHERE (? IS NULL OR aggregate_type = ?) AND (? IS NULL OR aggregate_id = ?)
         ORDER BY aggregate_type, aggregate_id, sequence, position
         LIMIT ?""")) {
      ps.setString(1, aggregateType);
      ps.setString(2, aggregateType);
      ps.setString(3, aggregateId);
      ps.setString(4, aggregateId);
      ps.setInt(5, limit);
      return events(ps);
    }
  }

  public int purgeSuppliedIds(Connection c, Duration age, int limit) throws SQLException {
    return purge(c, purgeSuppliedIdsSql, age, limit);
  }

  private static int purge(Connection c, String sql, Duration age, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
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

  /**
   * A stored id that is not a UUID (a plain-SQL row on MariaDB, FAILED as undecodable) is listed
   * without one rather than failing the whole listing.
   */
  private static UUID uuidOrNull(Object id) {
    if (id instanceof UUID u) {
      return u;
    }
    try {
      UUID u = UUID.fromString(id.toString());
      return u.toString().equalsIgnoreCase(id.toString()) ? u : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private Instant time(ResultSet rs, int column) throws SQLException {
    return Rows.time(rs, column, f.utcDateTimes());
  }
}
