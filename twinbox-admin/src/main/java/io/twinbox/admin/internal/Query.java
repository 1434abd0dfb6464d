package io.twinbox.admin.internal;

import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.Fields;

/**
 * The read API's query parameters, checked strictly: a bad value is a 400 naming the parameter and
 * its limit, never echoing it.
 */
public final class Query {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;
  /** The longest age a filter or purge accepts: ten years. */
  static final Duration MAX_AGE = Duration.ofDays(3650);
  private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");
  static final String DURATION_FORMS = "a duration such as 500ms, 30s, 5m, 2h, 7d or PT5M, up to 3650d";

  private Query() {}

  /** An exact-match filter, {@code null} when absent or blank. */
  static String filter(Fields q, String name) {
    String v = q.getValue(name);
    if (v == null || v.isBlank()) {
      return null;
    }
    if (v.length() > Action.MAX_NAME_LENGTH) {
      throw ApiError.badRequest(name, "is " + v.length() + " characters, limit " + Action.MAX_NAME_LENGTH);
    }
    return v.strip();
  }

  static int limit(Fields q) {
    String v = q.getValue("limit");
    if (v == null || v.isBlank()) {
      return DEFAULT_LIMIT;
    }
    long n = whole(v, "limit", "must be a whole number from 1 to " + MAX_LIMIT);
    if (n < 1 || n > MAX_LIMIT) {
      throw ApiError.badRequest("limit", "must be from 1 to " + MAX_LIMIT + ", was " + n);
    }
    return (int) n;
  }

  /** {@code GET /api/pending}: the event filters, {@code olderThan}, {@code after} (a position) and {@code limit}. */
  static PendingQuery pending(Fields q) {
    String age = q.getValue("olderThan");
    Duration olderThan = age == null || age.isBlank() ? Duration.ZERO : duration("olderThan", age, false);
    String after = q.getValue("after");
    long position = 0;
    if (after != null && !after.isBlank()) {
      position = whole(after, "after", "must be the position a page ended at (a whole number >= 0)");
    }
    return new PendingQuery(filter(q, "type"), filter(q, "aggregateType"), filter(q, "aggregateId"), olderThan,
        position, limit(q));
  }

  /**
   * {@code text} as a duration ({@link #DURATION_FORMS}); {@code positive}: zero refused too.
   *
   * @throws ApiError 400 naming {@code field}
   */
  static Duration duration(String field, String text, boolean positive) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    Duration d = null;
    Matcher m = SIMPLE_DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d = switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    } else if (t.length() <= 40) {
      try {
        d = Duration.parse(t.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        d = null;
      }
    }
    if (d == null || d.isNegative() || d.compareTo(MAX_AGE) > 0) {
      throw ApiError.badRequest(field, "must be " + DURATION_FORMS);
    }
    if (positive && d.isZero()) {
      throw ApiError.badRequest(field, "must be longer than 0");
    }
    return d;
  }

  private static long whole(String v, String field, String rule) {
    String t = v.strip();
    if (t.isEmpty() || t.length() > 18 || !t.chars().allMatch(Character::isDigit)) {
      throw ApiError.badRequest(field, rule);
    }
    return Long.parseLong(t);
  }
}
