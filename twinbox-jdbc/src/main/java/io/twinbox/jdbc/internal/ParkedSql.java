package io.twinbox.jdbc.internal;

import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedMessageException.Problem;
import io.twinbox.ParkedState;
import io.twinbox.ParkedSummary;
import io.twinbox.spi.StoreRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The parked-message statements of {@code twinbox_inbox_parked} and its audit table (schema
 * PostgreSQL V7, MariaDB V6), written once in the SQL both dialects share; each dialect supplies the
 * clock and age fragments. Runs on the caller's connection and transaction. Part of the dialect
 * layer: only dialects construct it.
 */
public final class ParkedSql {
  /**
   * What differs between databases.
   *
   * @param now the current time
   * @param before the time {@code ?} ago ({@code ?}: milliseconds, or microseconds with {@code beforeInMicros})
   * @param beforeInMicros whether {@code before}'s parameter is microseconds
   * @param ageMillis the age in milliseconds of the time expression {@code %s}
   * @param utcDateTimes whether times are UTC {@code DATETIME} (MariaDB) rather than {@code timestamptz}
   */
  public record Fragments(String now, String before, boolean beforeInMicros, String ageMillis, boolean utcDateTimes) {}

  private static final String COLUMNS = """
      id, consumer, message_id, type, version, source, aggregate_type, aggregate_id, sequence, reason, attempts,
      parked_at, headers, correlation_id, causation_id, traceparent, origin, payload_hash, state, state_at, state_by,
      payload IS NOT NULL""";
  private static final String AUDIT = """
      INSERT INTO twinbox_inbox_parked_audit (parked_id, consumer, message_id, action, actor, detail)
      SELECT id, consumer, message_id, ?, ?, ? FROM twinbox_inbox_parked WHERE id = ?""";
  /** Ids per {@code IN} list of a bulk change. */
  private static final int CHUNK = 500;

  private final Fragments f;

  public ParkedSql(Fragments f) {
    this.f = f;
  }

  public List<ParkedMessage> list(Connection c, ParkedFilter filter) throws SQLException {
    Where w = where(filter);
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM twinbox_inbox_parked WHERE " + w.sql
        + " ORDER BY parked_at, id LIMIT ?")) {
      int i = w.bind(ps);
      ps.setInt(i, filter.limit());
      return rows(ps, false);
    }
  }

  public Optional<ParkedMessage> one(Connection c, long id, boolean withPayload, boolean lock) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + (withPayload ? ", payload" : "")
        + " FROM twinbox_inbox_parked WHERE id = ?" + (lock ? " FOR UPDATE" : ""))) {
      ps.setLong(1, id);
      List<ParkedMessage> rows = rows(ps, withPayload);
      return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }
  }

  /** Moves one row to {@code target} from an allowed state, with its audit record; the typed error otherwise. */
  public ParkedMessage change(Connection c, long id, ParkedState target, String action, String by)
      throws SQLException {
    ParkedMessage m = one(c, id, false, true).orElseThrow(() -> new ParkedMessageException(id, Problem.NOT_FOUND));
    switch (m.state()) {
      case REPLAYED -> throw new ParkedMessageException(id, Problem.ALREADY_REPLAYED);
      case DISCARDED -> throw new ParkedMessageException(id, Problem.ALREADY_DISCARDED);
      default -> { }
    }
    if (target == ParkedState.REPLAYING) {
      if (!m.payloadStored()) {
        throw new ParkedMessageException(id, Problem.NOT_REPLAYABLE);
      }
      if (m.state() == ParkedState.REPLAYING) {
        return m; // asked already: the consumer has it
      }
    }
    setState(c, List.of(id), target, by);
    audit(c, id, action, by, null);
    return one(c, id, false, false).orElseThrow();
  }

  /** Moves the rows {@code filter} selects in {@code from} to {@code target}, with audit records; returns how many. */
  public int changeAll(Connection c, ParkedFilter filter, List<ParkedState> from, boolean needPayload,
      ParkedState target, String action, String by) throws SQLException {
    java.util.Set<ParkedState> states = filter.states().stream().filter(from::contains)
        .collect(Collectors.toCollection(() -> java.util.EnumSet.noneOf(ParkedState.class)));
    if (states.isEmpty()) {
      return 0;
    }
    Where w = where(filter.states(states));
    List<Long> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT id FROM twinbox_inbox_parked WHERE " + w.sql
        + (needPayload ? " AND payload IS NOT NULL" : "") + " ORDER BY parked_at, id LIMIT ? FOR UPDATE")) {
      ps.setInt(w.bind(ps), filter.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    for (int from0 = 0; from0 < ids.size(); from0 += CHUNK) {
      List<Long> chunk = ids.subList(from0, Math.min(ids.size(), from0 + CHUNK));
      setState(c, chunk, target, by);
      String in = chunk.stream().map(x -> "?").collect(Collectors.joining(", "));
      try (PreparedStatement ps = c.prepareStatement("""
          INSERT INTO twinbox_inbox_parked_audit (parked_id, consumer, message_id, action, actor)
          SELECT id, consumer, message_id, ?, ? FROM twinbox_inbox_parked WHERE id IN (""" + in + ")")) {
        ps.setString(1, action);
        ps.setString(2, by);
        for (int k = 0; k < chunk.size(); k++) {
          ps.setLong(3 + k, chunk.get(k));
        }
        ps.executeUpdate();
      }
    }
    return ids.size();
  }

  private void setState(Connection c, List<Long> ids, ParkedState target, String by) throws SQLException {
    String in = ids.stream().map(x -> "?").collect(Collectors.joining(", "));
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_inbox_parked SET state = ?, state_at = " + f.now()
        + ", state_by = ? WHERE id IN (" + in + ")")) {
      ps.setString(1, target.name());
      ps.setString(2, by);
      for (int k = 0; k < ids.size(); k++) {
        ps.setLong(3 + k, ids.get(k));
      }
      ps.executeUpdate();
    }
  }

  public void audit(Connection c, long id, String action, String by, String detail) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(AUDIT)) {
      ps.setString(1, action);
      ps.setString(2, by);
      ps.setString(3, detail);
      ps.setLong(4, id);
      ps.executeUpdate();
    }
  }

  public List<ParkedAudit> auditTrail(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("""
        SELECT parked_id, consumer, message_id, action, actor, at, detail FROM twinbox_inbox_parked_audit
         WHERE parked_id = ? ORDER BY id""")) {
      ps.setLong(1, id);
      List<ParkedAudit> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new ParkedAudit(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
              time(rs, 6), rs.getString(7)));
        }
      }
      return out;
    }
  }

  public List<ParkedSummary> summary(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT consumer,"
        + " SUM(CASE WHEN state = 'PARKED' THEN 1 ELSE 0 END), SUM(CASE WHEN state = 'REPLAYING' THEN 1 ELSE 0 END), "
        + f.ageMillis().formatted("MIN(parked_at)")
        + " FROM twinbox_inbox_parked WHERE state IN ('PARKED', 'REPLAYING') GROUP BY consumer ORDER BY consumer");
        ResultSet rs = ps.executeQuery()) {
      List<ParkedSummary> out = new ArrayList<>();
      while (rs.next()) {
        out.add(new ParkedSummary(rs.getString(1), rs.getLong(2), rs.getLong(3),
            Duration.ofMillis(Math.max(0, rs.getLong(4)))));
      }
      return out;
    }
  }

  /** The consumer's replay requests, oldest request first, with payloads. */
  public List<ParkedMessage> replayRequests(Connection c, String consumer, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + ", payload FROM twinbox_inbox_parked"
        + " WHERE state = 'REPLAYING' AND consumer = ? ORDER BY state_at, id LIMIT ?")) {
      ps.setString(1, consumer);
      ps.setInt(2, limit);
      return rows(ps, true);
    }
  }

  /** Locks a row still replaying for {@code consumer}; empty when it is not. */
  public Optional<ParkedMessage> lockReplaying(Connection c, String consumer, long id) throws SQLException {
    return one(c, id, false, true).filter(m -> m.state() == ParkedState.REPLAYING && m.consumer().equals(consumer));
  }

  /** The replay failed: back to PARKED with the new reason and one more attempt, if it was still replaying. */
  public boolean replayFailed(Connection c, String consumer, long id, String reason, String by) throws SQLException {
    int n;
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_inbox_parked SET state = 'PARKED', reason = ?,"
        + " attempts = attempts + 1, state_at = " + f.now() + ", state_by = ?"
        + " WHERE id = ? AND consumer = ? AND state = 'REPLAYING'")) {
      ps.setString(1, reason);
      ps.setString(2, by);
      ps.setLong(3, id);
      ps.setString(4, consumer);
      n = ps.executeUpdate();
    }
    if (n > 0) {
      audit(c, id, ParkedAudit.REPLAY_FAILED, by, reason);
    }
    return n > 0;
  }

  private List<ParkedMessage> rows(PreparedStatement ps, boolean withPayload) throws SQLException {
    List<ParkedMessage> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new ParkedMessage(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
            rs.getString(6), rs.getString(7), rs.getString(8), rs.getLong(9), rs.getString(10), rs.getInt(11),
            time(rs, 12), headers(rs.getString(13)), rs.getString(14), rs.getString(15), rs.getString(16),
            rs.getString(17), rs.getString(18), ParkedState.valueOf(rs.getString(19)), time(rs, 20), rs.getString(21),
            rs.getBoolean(22), withPayload ? rs.getString(23) : null));
      }
    }
    return out;
  }

  /** Headers as stored; a column that is not a JSON object of strings (plain SQL) is shown as none. */
  private static Map<String, String> headers(String json) {
    if (json == null) {
      return Map.of();
    }
    try {
      return StoreRules.decodeHeaders(json);
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  private Instant time(ResultSet rs, int column) throws SQLException {
    return Rows.time(rs, column, f.utcDateTimes());
  }

  /** The filter's criteria as a WHERE clause and its parameters. */
  private Where where(ParkedFilter filter) {
    Where w = new Where();
    w.add("consumer = ?", filter.consumer());
    if (filter.reasonContains() != null) {
      w.add("POSITION(? IN LOWER(reason)) > 0", filter.reasonContains().toLowerCase(java.util.Locale.ROOT));
    }
    if (filter.olderThan() != null) {
      Duration d = filter.olderThan();
      w.add("parked_at < " + f.before(), f.beforeInMicros() ? d.toNanos() / 1_000 : d.toMillis());
    }
    w.add("aggregate_type = ?", filter.aggregateType());
    w.add("aggregate_id = ?", filter.aggregateId());
    w.sql.append(" AND state IN (").append(filter.states().stream().sorted().map(s -> "'" + s.name() + "'")
        .collect(Collectors.joining(", "))).append(')');
    return w;
  }

  private static final class Where {
    final StringBuilder sql = new StringBuilder("1 = 1");
    final List<Object> params = new ArrayList<>();

    void add(String clause, Object value) {
      if (value != null) {
        sql.append(" AND ").append(clause);
        params.add(value);
      }
    }

    /** Binds the parameters; returns the next parameter index. */
    int bind(PreparedStatement ps) throws SQLException {
      int i = 1;
      for (Object p : params) {
        if (p instanceof Long l) {
          ps.setLong(i++, l);
        } else {
          ps.setString(i++, (String) p);
        }
      }
      return i;
    }
  }
}
