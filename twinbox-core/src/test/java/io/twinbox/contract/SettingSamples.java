package io.twinbox.contract;

import io.twinbox.settings.Setting;
import java.time.Duration;
import java.util.List;

/**
 * Values for the settings agreement tests of core, the CLI and the starter (shipped in core's
 * test-jar): a valid value other than the default, and a value out of range, for any setting (null
 * when there is none). Stateless.
 */
public final class SettingSamples {
  private SettingSamples() {}

  /** A value within the limits and unlike the default; null when none can be made. */
  @SuppressWarnings("unchecked")
  public static Object valid(Setting<?> s) {
    Object v = candidate(s);
    try {
      return v == null ? null : ((Setting<Object>) s).check(v);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static Object candidate(Setting<?> s) {
    Object d = s.defaultValue();
    return switch (s.type()) {
      case INT -> s.min() != null && !s.min().equals(d) ? (Object) ((Integer) s.min() + (s.minExclusive() ? 1 : 0))
          : s.max() != null ? s.max() : d == null ? 1 : (Integer) d + 1;
      case LONG -> s.min() != null && !s.min().equals(d) ? (Long) s.min() + (s.minExclusive() ? 1 : 0)
          : s.max() != null ? s.max() : (Long) d + 1;
      case DOUBLE -> s.min() != null && !s.min().equals(d) ? s.min() : s.max() != null ? s.max() : (Double) d + 1;
      case DURATION -> s.min() != null && !s.min().equals(d) && !((Duration) s.min()).isZero()
          ? ((Duration) s.min()).plusMillis(s.minExclusive() ? 1 : 0)
          : s.max() != null && !s.max().equals(d) ? s.max() : d == null ? Duration.ofSeconds(1) : ((Duration) d).plusSeconds(1);
      case BOOLEAN -> d == null || !(Boolean) d;
      case ENUM -> s.allowedValues().stream().filter(v -> !v.equals(d)).findFirst().orElse(null);
      case STRING -> s.secret() ? null : "sample";
      case LIST -> List.of("sample");
      case MAP -> null;
    };
  }

  /** A value just outside the limits; null when the type allows none (booleans, enums, free text). */
  public static Object invalid(Setting<?> s) {
    return switch (s.type()) {
      case INT -> s.min() != null ? (Object) ((Integer) s.min() - (s.minExclusive() ? 0 : 1))
          : s.max() != null ? (Integer) s.max() + 1 : null;
      case LONG -> s.min() != null ? (Long) s.min() - (s.minExclusive() ? 0 : 1) : null;
      case DOUBLE -> s.min() != null ? (Double) s.min() - 1 : null;
      case DURATION -> s.min() != null ? ((Duration) s.min()).minusMillis(s.minExclusive() ? 0 : 1)
          : s.max() != null ? ((Duration) s.max()).plusMillis(1) : null;
      case STRING -> s.maxLength() > 0 ? "x".repeat(s.maxLength() + 1) : null;
      default -> null;
    };
  }
}
