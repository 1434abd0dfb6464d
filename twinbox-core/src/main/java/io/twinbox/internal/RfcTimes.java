package io.twinbox.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * RFC 3339 times in the one form every Twinbox publisher writes ({@link Instant#toString}: {@code
 * 2026-12-02T10:15:30.123456Z}), read without the general parser, which costs several microseconds
 * per message. Stateless.
 */
public final class RfcTimes {
  private RfcTimes() {}

  /**
   * The instant of {@code text} when it is exactly {@code yyyy-MM-ddTHH:mm:ss[.f…]Z} (four-digit
   * year, one to nine fraction digits, upper-case {@code T} and {@code Z}) and a valid date and time;
   * {@code null} for anything else, which the caller hands to {@code OffsetDateTime.parse}: it
   * accepts this form too, with the same instant, and it alone judges and words every other.
   */
  public static Instant utcOrNull(String text) {
    int n = text.length();
    if (n < 20 || n > 30 || n == 21 || text.charAt(n - 1) != 'Z' || text.charAt(4) != '-' || text.charAt(7) != '-'
        || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    int nanos = 0;
    if (n > 20) {
      if (text.charAt(19) != '.') {
        return null;
      }
      int fraction = digits(text, 20, n - 1);
      if (fraction < 0) {
        return null;
      }
      nanos = fraction;
      for (int i = n - 1 - 20; i < 9; i++) {
        nanos *= 10;
      }
    }
    if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
      return null;
    }
    LocalDate date;
    try {
      date = LocalDate.of(year, month, day);
    } catch (DateTimeException e) {
      return null; // e.g. February 30: the general parser refuses it in its own words
    }
    return Instant.ofEpochSecond(date.toEpochDay() * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
  }

  /** The decimal number in {@code text[from, to)}, ASCII digits only; -1 otherwise. */
  private static int digits(String text, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
