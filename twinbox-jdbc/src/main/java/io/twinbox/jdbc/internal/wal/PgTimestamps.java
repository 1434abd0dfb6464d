package io.twinbox.jdbc.internal.wal;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.postgresql.PGStatement;

/**
 * Reads {@code timestamptz} values as logical replication sends them: text in the session's ISO
 * style, {@code 2026-12-01 09:05:27.123456+01}, with an offset of the session's time zone ({@code
 * +HH}, {@code +HH:MM} or {@code +HH:MM:SS}), optionally followed by {@code BC}; or {@code
 * infinity} / {@code -infinity}, mapped to the instants the JDBC driver returns for them, so that the
 * stream yields the same values as a query.
 *
 * <p>Stateless and thread-safe.
 */
final class PgTimestamps {
  /** Microseconds from 1970-01-01 to PostgreSQL's epoch 2000-01-01. */
  private static final long EPOCH_2000_MICROS = 946_684_800_000_000L;

  private PgTimestamps() {}

  /** A commit timestamp of the replication protocol: microseconds since 2000-01-01 UTC. */
  static Instant fromPgMicros(long micros) {
    long unixMicros = micros + EPOCH_2000_MICROS;
    return Instant.ofEpochSecond(Math.floorDiv(unixMicros, 1_000_000L), Math.floorMod(unixMicros, 1_000_000L) * 1_000L);
  }

  static Instant parse(String text) {
    if (text.equals("infinity")) {
      return Instant.ofEpochMilli(PGStatement.DATE_POSITIVE_INFINITY);
    }
    if (text.equals("-infinity")) {
      return Instant.ofEpochMilli(PGStatement.DATE_NEGATIVE_INFINITY);
    }
    boolean bc = text.endsWith(" BC");
    String s = bc ? text.substring(0, text.length() - 3) : text;
    int dash1 = s.indexOf('-', 1);
    int dash2 = s.indexOf('-', dash1 + 1);
    int space = s.indexOf(' ', dash2 + 1);
    if (dash1 < 0 || dash2 < 0 || space < 0) {
      throw new IllegalArgumentException("not a timestamp with time zone: '" + text + "'");
    }
    int year = Integer.parseInt(s.substring(0, dash1));
    int month = Integer.parseInt(s.substring(dash1 + 1, dash2));
    int day = Integer.parseInt(s.substring(dash2 + 1, space));
    int hour = Integer.parseInt(s.substring(space + 1, space + 3));
    int minute = Integer.parseInt(s.substring(space + 4, space + 6));
    int second = Integer.parseInt(s.substring(space + 7, space + 9));
    int i = space + 9;
    int nanos = 0;
    if (i < s.length() && s.charAt(i) == '.') {
      int start = ++i;
      while (i < s.length() && Character.isDigit(s.charAt(i))) {
        i++;
      }
      String fraction = (s.substring(start, i) + "000000000").substring(0, 9);
      nanos = Integer.parseInt(fraction);
    }
    ZoneOffset offset = offset(s.substring(i));
    LocalDateTime local = LocalDateTime.of(bc ? 1 - year : year, month, day, hour, minute, second, nanos);
    return local.toInstant(offset);
  }

  private static ZoneOffset offset(String zone) {
    if (zone.isEmpty() || (zone.charAt(0) != '+' && zone.charAt(0) != '-')) {
      throw new IllegalArgumentException("timestamp without an offset: '" + zone + "'");
    }
    int sign = zone.charAt(0) == '-' ? -1 : 1;
    String[] parts = zone.substring(1).split(":");
    int hours = Integer.parseInt(parts[0]);
    int minutes = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
    int seconds = parts.length > 2 ? Integer.parseInt(parts[2]) : 0;
    return ZoneOffset.ofTotalSeconds(sign * (hours * 3600 + minutes * 60 + seconds));
  }
}
