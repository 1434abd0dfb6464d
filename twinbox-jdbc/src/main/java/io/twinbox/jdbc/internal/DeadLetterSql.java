package io.twinbox.jdbc.internal;

import io.twinbox.InboxMessage;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.StoreRules;
import io.twinbox.spi.WireEvents;
import io.twinbox.spi.UndecodableRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter loop's statements (schema script {@code V8__dead_letters} / {@code V7__dead_letters}),
 * written once in the SQL both dialects share; each dialect supplies the clock, the columns that
 * need a cast and how times are typed. The FAILED update that marks a dead letter pending is the
 * dialect's own completion. Part of the dialect layer: only dialects construct it.
 */
public final class DeadLetterSql {
  private static final Logger log = LoggerFactory.getLogger(DeadLetterSql.class);

  /**
   * What differs between databases.
   *
   * @param now the statement's clock
   * @param payloadColumns the payload and headers as text, e.g. {@code o.payload::text, o.headers::text}
   * @param utcDateTimes {@code true} when times are UTC {@code DATETIME} (MariaDB)
   * @param payloadIsJsonb {@code true} when the database already checked the payload is JSON
   */
  public record Fragments(String now, String payloadColumns, boolean utcDateTimes, boolean payloadIsJsonb) {}

  private final Fragments f;
  private final String claimSql;

  public DeadLetterSql(Fragments f) {
    this.f = f;
    this.claimSql = """
        SELECT o.position, o.id, o.aggregate_type, o.aggregate_id, o.sequence, o.partition_no, o.type, o.version,
               %s, o.correlation_id, o.causation_id, o.traceparent,
               o.occurred_at, o.created_at, o.attempts, o.last_error, o.first_failed_at, o.last_failed_at
          FROM twinbox_outbox o
         WHERE o.dead_letter = 'PENDING'
           AND o.partition_no IN (%%s)
           AND o.partition_no IN (SELECT l.partition_no FROM twinbox_relay_lease l
                                   WHERE l.owner = ? AND l.lease_until > %s)
         ORDER BY o.position
         LIMIT ?""".formatted(f.payloadColumns(), f.now());
  }

  /** Pending dead letters of the presented partitions the node still holds, oldest first. */
  public List<DeadLetter> claim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException {
    if (leases.isEmpty()) {
      return List.of();
    }
    List<DeadLetter> out = new ArrayList<>();
    List<Long> undecodable = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(claimSql.formatted(Rows.marks(leases.size())))) {
      int i = 1;
      for (PartitionLease l : leases) {
        ps.setInt(i++, l.partition());
      }
      ps.setString(i++, nodeId);
      ps.setInt(i, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ClaimedRow row = Rows.claimed(rs, f.utcDateTimes(), f.payloadIsJsonb());
          if (row instanceof OutboxMessage m) {
            out.add(new DeadLetter(m, rs.getString(17), rs.getInt(16), time(rs, 18), time(rs, 19)));
          } else {
            UndecodableRow u = (UndecodableRow) row;
            log.error("outbox row at position {} (id {}) has a pending dead letter but no longer decodes; its dead"
                + " letter is dropped: {}", u.position(), u.id(), u.reason());
            undecodable.add(u.position());
          }
        }
      }
    }
    if (!undecodable.isEmpty()) {
      mark(c, undecodable, "DROPPED");
    }
    return out;
  }

  /** Parked messages of {@code consumer} not yet forwarded (dead_letter NULL), oldest first. */
  public List<ParkedLetter> unforwardedParked(Connection c, String consumer, int limit) throws SQLException {
    String sql = """
        SELECT o.id, o.message_id, o.type, o.version, o.source, o.aggregate_type, o.aggregate_id, o.sequence,
               %s, o.correlation_id, o.causation_id, o.traceparent, o.origin, o.reason, o.attempts, o.parked_at
          FROM twinbox_inbox_parked o
         WHERE o.consumer = ? AND o.dead_letter IS NULL
         ORDER BY o.consumer, o.parked_at, o.id
         LIMIT ?""".formatted(f.payloadColumns());
    List<ParkedLetter> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, consumer);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Map<String, String> headers;
          try {
            headers = rs.getString(10) == null ? Map.of() : StoreRules.decodeHeaders(rs.getString(10));
          } catch (RuntimeException e) {
            headers = Map.of(); // parked as it came: its headers may be what was wrong with it
          }
          String type = rs.getString(3);
          InboxMessage m = new InboxMessage(rs.getString(2), type == null ? WireEvents.UNREADABLE : type,
              Math.max(1, rs.getInt(4)), rs.getString(5), rs.getString(6), rs.getString(7), Math.max(0, rs.getLong(8)),
              rs.getString(9), headers, rs.getString(11), rs.getString(12), rs.getString(13), null, rs.getString(14));
          out.add(new ParkedLetter(rs.getLong(1), m, consumer, rs.getString(15), rs.getInt(16), time(rs, 17)));
        }
      }
    }
    return out;
  }

  /** Marks parked rows forwarded; returns how many. */
  public int parkedForwarded(Connection c, Collection<Long> rows) throws SQLException {
    if (rows.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(rows);
    Collections.sort(sorted);
    String sql = "UPDATE twinbox_inbox_parked SET dead_letter = 'SENT' WHERE id IN (%s) AND dead_letter IS NULL"
        .formatted(Rows.marks(sorted.size()));
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (long r : sorted) {
        ps.setLong(i++, r);
      }
      return ps.executeUpdate();
    }
  }

  /** Marks pending dead letters sent; returns how many. */
  public int sent(Connection c, Collection<Long> positions) throws SQLException {
    return positions.isEmpty() ? 0 : mark(c, positions, "SENT");
  }

  private static int mark(Connection c, Collection<Long> positions, String state) throws SQLException {
    List<Long> sorted = new ArrayList<>(positions);
    Collections.sort(sorted); // one lock order
    String sql = "UPDATE twinbox_outbox SET dead_letter = ? WHERE position IN (%s) AND dead_letter = 'PENDING'"
        .formatted(Rows.marks(sorted.size()));
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, state);
      int i = 2;
      for (long p : sorted) {
        ps.setLong(i++, p);
      }
      return ps.executeUpdate();
    }
  }

  private Instant time(ResultSet rs, int column) throws SQLException {
    return Rows.time(rs, column, f.utcDateTimes());
  }
}
