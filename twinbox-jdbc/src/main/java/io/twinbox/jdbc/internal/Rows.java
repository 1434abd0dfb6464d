package io.twinbox.jdbc.internal;

import io.twinbox.InvalidEventException;
import io.twinbox.spi.StoreRules;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Maps claimed rows to SPI records, one row at a time. Column order is the claim query's.
 *
 * <p>A row written by plain SQL (or stored before the schema checked it) can break the rules the
 * Java writer enforces: headers that are not a JSON object of strings, an id that is not a UUID
 * (MariaDB's is text), a blank type, a reserved header name, a payload that is not JSON (MariaDB's
 * is text). Such a row becomes an {@link UndecodableRow} with the rule it breaks; it must never fail
 * the whole claim, or one bad row would stop every row of its relay worker.
 */
public final class Rows {
  /** The canonical form only: {@link UUID#fromString} also takes forms such as {@code 1-1-1-1-1}. */
  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final int MAX_PRINTED_ID = 64;

  private Rows() {}

  /**
   * @param utcDateTimes {@code true} when times are stored as UTC {@code DATETIME} (MariaDB),
   *     {@code false} for {@code timestamptz} (PostgreSQL)
   * @param payloadIsJsonb {@code true} when the database already guarantees what the payload rules
   *     check (PostgreSQL's jsonb refuses exactly what they refuse), so the relay need not parse it
   * @throws SQLException only for a failure of the database or connection, never for a row's content
   */
  public static ClaimedRow claimed(ResultSet rs, boolean utcDateTimes, boolean payloadIsJsonb) throws SQLException {
    long position = rs.getLong(1);
    String aggregateType = rs.getString(3);
    String aggregateId = rs.getString(4);
    long sequence = rs.getLong(5);
    int partition = rs.getInt(6);
    int attempts = rs.getInt(16);
    Object rawId = rs.getObject(2);
    String problem;
    try {
      UUID id = uuid(rawId);
      String type = rs.getString(7);
      int version = rs.getInt(8);
      String payload = rs.getString(9);
      Map<String, String> headers = StoreRules.checkHeaders(StoreRules.decodeHeaders(rs.getString(10)));
      String correlationId = rs.getString(11);
      String causationId = rs.getString(12);
      String traceparent = rs.getString(13);
      StoreRules.checkEnvelope(type, version, aggregateType, aggregateId, correlationId, causationId, traceparent);
      if (payload == null) {
        throw new InvalidEventException("payload", "is NULL");
      }
      if (!payloadIsJsonb) {
        StoreRules.requireJson("payload", payload);
      }
      return new OutboxMessage(position, id, aggregateType, aggregateId, sequence, partition, type, version,
          payload, headers, correlationId, causationId, traceparent,
          utcDateTimes ? utc(rs, 14) : instant(rs.getTimestamp(14)),
          utcDateTimes ? utc(rs, 15) : instant(rs.getTimestamp(15)),
          attempts, null);
    } catch (InvalidEventException e) {
      problem = e.getMessage();
    } catch (SQLException e) {
      if (!(e instanceof SQLDataException) && (e.getSQLState() == null || !e.getSQLState().startsWith("22"))) {
        throw e; // the database or the connection, not this row
      }
      problem = "a column cannot be read (SQLSTATE " + e.getSQLState() + ")";
    }
    return new UndecodableRow(position, printable(rawId), aggregateType, aggregateId, sequence, partition, attempts,
        "undecodable row: " + problem);
  }

  private static UUID uuid(Object raw) {
    if (raw instanceof UUID u) {
      return u;
    }
    if (raw == null || !UUID_TEXT.matcher(raw.toString()).matches()) {
      throw new InvalidEventException("id", "is not a UUID (8-4-4-4-12 hexadecimal digits)");
    }
    return UUID.fromString(raw.toString());
  }

  /** The stored id for logs: clipped, control characters shown as {@code \\uXXXX}. */
  static String printable(Object raw) {
    if (raw == null) {
      return "null";
    }
    String s = raw.toString();
    StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_PRINTED_ID) + 8);
    for (int i = 0; i < s.length() && out.length() < MAX_PRINTED_ID; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return s.length() > MAX_PRINTED_ID ? out.append('…').toString() : out.toString();
  }

  /**
   * A column's time: UTC {@code DATETIME} read as local date-time (MariaDB, {@code utcDateTimes}) or
   * a {@code timestamptz}; null stays null.
   */
  public static Instant time(ResultSet rs, int column, boolean utcDateTimes) throws SQLException {
    return utcDateTimes ? utc(rs, column) : instant(rs.getTimestamp(column));
  }

  /** {@code n} JDBC parameter marks, comma-separated, for an {@code IN (…)} list. */
  public static String marks(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }

  private static Instant utc(ResultSet rs, int column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  /** Runs a claim and maps its rows one by one ({@link #claimed}). */
  public static List<ClaimedRow> claimedRows(PreparedStatement ps, int limit, boolean utcDateTimes,
      boolean payloadIsJsonb) throws SQLException {
    List<ClaimedRow> result = new ArrayList<>(Math.min(limit, 1024));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        result.add(claimed(rs, utcDateTimes, payloadIsJsonb));
      }
    }
    return result;
  }

  /** Runs a query and returns its first column as text, row by row. */
  public static List<String> firstColumn(PreparedStatement ps) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Runs a query and maps its first column to its second, as text. */
  public static Map<String, String> firstToSecond(PreparedStatement ps) throws SQLException {
    Map<String, String> out = new HashMap<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }
}
