package io.twinbox.settings;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Values of a {@link Setting} to and from text, the one form every surface reads and shows. Stateless. */
final class SettingText {
  private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,15})\\s*(ns|us|ms|s|m|h|d)");

  private SettingText() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static <T> T parse(Setting<T> setting, String text, String shownName) {
    Objects.requireNonNull(text, shownName + " cannot be null");
    String t = text.trim();
    String shown = setting.secret() ? "****" : t;
    Object v = switch (setting.type()) {
      case INT, LONG -> {
        try {
          yield setting.type() == Setting.Type.INT ? (Object) Integer.valueOf(t) : Long.valueOf(t);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(shownName + " must be a whole number, was '" + shown + "'");
        }
      }
      case DOUBLE -> {
        try {
          yield Double.valueOf(t);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(shownName + " must be a number, was '" + shown + "'");
        }
      }
      case BOOLEAN -> {
        if (!t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException(shownName + " must be true or false, was '" + shown + "'");
        }
        yield Boolean.valueOf(t);
      }
      case DURATION -> parseDuration(t, shownName, shown);
      case ENUM -> {
        String wanted = t.replace('-', '_');
        for (Object c : setting.javaType().getEnumConstants()) {
          if (((Enum) c).name().equalsIgnoreCase(wanted)) {
            yield c;
          }
        }
        throw new IllegalArgumentException(shownName + " must be one of " + setting.limits() + ", was '" + shown + "'");
      }
      case STRING -> t;
      case LIST -> Arrays.stream(t.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      case MAP -> throw new UnsupportedOperationException(shownName + " is a map: give its entries one by one");
    };
    return (T) v;
  }

  private static Duration parseDuration(String t, String shownName, String shown) {
    Matcher m = SIMPLE_DURATION.matcher(t.toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ns" -> Duration.ofNanos(n);
        case "us" -> Duration.ofNanos(n * 1000);
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(shownName + " must be a duration such as 500ms, 30s, 5m, 2h, 30d or PT5M,"
          + " was '" + shown + "'");
    }
  }

  static String format(Setting<?> setting, Object value) {
    if (value == null) {
      return "";
    }
    return switch (setting.type()) {
      case DOUBLE -> new BigDecimal(value.toString()).stripTrailingZeros().toPlainString();
      case DURATION -> formatDuration((Duration) value);
      case ENUM -> ((Enum<?>) value).name();
      case LIST -> String.join(",", ((List<?>) value).stream().map(String::valueOf).toList());
      case MAP -> String.join(",", ((Map<?, ?>) value).keySet().stream().map(String::valueOf).toList());
      default -> value.toString();
    };
  }

  private static String formatDuration(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long ms = d.toMillis();
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};
    String[] units = {"d", "h", "m", "s", "ms"};
    for (int i = 0; i < sizes.length; i++) {
      if (ms % sizes[i] == 0) {
        return ms / sizes[i] + units[i];
      }
    }
    return ms + "ms";
  }
}
