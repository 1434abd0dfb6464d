package io.twinbox.cli.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 30d} or ISO-8601 ({@code PT5M}). */
public final class Durations {
  private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

  private Durations() {}

  /**
   * @param name the setting or option, for the error message
   * @throws ConfigException when the text is not a duration or is negative
   */
  public static Duration parse(String name, String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SIMPLE.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      Duration d = Duration.parse(text.trim());
      if (!d.isNegative()) {
        return d;
      }
    } catch (DateTimeParseException | NullPointerException e) {
      // reported below
    }
    throw new ConfigException(name + " must be a duration such as 500ms, 30s, 5m, 2h, 30d or PT5M, was '"
        + text + "'");
  }

  /** Short human form: {@code 42 ms}, {@code 3.2 s}, {@code 4 min 10 s}, {@code 2 h 5 min}, {@code 3 d 4 h}. */
  public static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    long s = d.toSeconds();
    if (s < 3600) {
      return s / 60 + " min " + s % 60 + " s";
    }
    if (s < 86_400) {
      return s / 3600 + " h " + s % 3600 / 60 + " min";
    }
    return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
  }
}
