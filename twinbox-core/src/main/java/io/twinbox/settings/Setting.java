package io.twinbox.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * One setting of a Twinbox component: its canonical name (the builder method's, e.g. {@code
 * batchSize}), type, default, limits, whether it is secret, and a one-line description. Declared
 * once, in the component's catalogue ({@link Catalogue}); the builder validates with {@link
 * #check}, and every other surface — the Spring Boot properties, the CLI's keys, the IDE metadata,
 * the README's tables — is derived from it.
 *
 * <pre>{@code
 * static final Setting<Integer> BATCH_SIZE = Setting.integer("batchSize").defaultValue(500)
 *     .range(1, 10_000).description("Rows claimed at once.");
 * this.batchSize = BATCH_SIZE.check(batchSize);   // "batchSize must be within [1, 10000], was 0"
 * }</pre>
 *
 * <p>Every fluent method returns a new setting: instances are immutable and thread-safe. Errors
 * never show the value of a secret setting, nor of any text setting (a URL may carry a password).
 *
 * @param <T> the value type: {@link Integer}, {@link Long}, {@link Double}, {@link Boolean},
 *     {@link Duration}, an enum, {@link String}, {@code List<String>} or {@code Map<String, String>}
 */
public final class Setting<T> {
  /** The kinds of value a setting holds. */
  public enum Type { INT, LONG, DOUBLE, BOOLEAN, DURATION, ENUM, STRING, LIST, MAP }

  private final String name;
  private final Type type;
  private final Class<?> javaType;
  private final T defaultValue;
  private final String defaultText;
  private final T min;
  private final boolean minExclusive;
  private final T max;
  private final int maxLength;
  private final Predicate<T> rule;
  private final String ruleText;
  private final boolean secret;
  private final String description;

  private Setting(String name, Type type, Class<?> javaType, T defaultValue, String defaultText, T min,
      boolean minExclusive, T max, int maxLength, Predicate<T> rule, String ruleText, boolean secret,
      String description) {
    this.name = name;
    this.type = type;
    this.javaType = javaType;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.min = min;
    this.minExclusive = minExclusive;
    this.max = max;
    this.maxLength = maxLength;
    this.rule = rule;
    this.ruleText = ruleText;
    this.secret = secret;
    this.description = description;
  }

  private static <T> Setting<T> of(String name, Type type, Class<?> javaType) {
    if (name == null || !name.matches("[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*")) {
      throw new IllegalArgumentException("a setting name is camelCase words joined by '.', was '" + name + "'");
    }
    return new Setting<>(name, type, javaType, null, null, null, false, null, 0, null, null, false, "");
  }

  public static Setting<Integer> integer(String name) {
    return of(name, Type.INT, Integer.class);
  }

  public static Setting<Long> longValue(String name) {
    return of(name, Type.LONG, Long.class);
  }

  public static Setting<Double> decimal(String name) {
    return of(name, Type.DOUBLE, Double.class);
  }

  public static Setting<Boolean> bool(String name) {
    return of(name, Type.BOOLEAN, Boolean.class);
  }

  public static Setting<Duration> duration(String name) {
    return of(name, Type.DURATION, Duration.class);
  }

  public static <E extends Enum<E>> Setting<E> enumValue(String name, Class<E> type) {
    return of(name, Type.ENUM, Objects.requireNonNull(type, "type cannot be null"));
  }

  public static Setting<String> string(String name) {
    return of(name, Type.STRING, String.class);
  }

  /** A list of texts; written comma-separated where a surface has only text. */
  public static Setting<List<String>> stringList(String name) {
    return of(name, Type.LIST, List.class);
  }

  /** Free-form {@code name=value} pairs (e.g. Kafka producer properties); values are shown to no one. */
  public static Setting<Map<String, String>> stringMap(String name) {
    Setting<Map<String, String>> s = of(name, Type.MAP, Map.class);
    return s.asSecret();
  }

  private Setting<T> copy(String name, T defaultValue, String defaultText, T min, boolean minExclusive, T max,
      int maxLength, Predicate<T> rule, String ruleText, boolean secret, String description) {
    return new Setting<>(name, type, javaType, defaultValue, defaultText, min, minExclusive, max, maxLength, rule,
        ruleText, secret, description);
  }

  /** The default, checked against the limits given so far (so give it after them). */
  public Setting<T> defaultValue(T value) {
    return copy(name, check(Objects.requireNonNull(value, "defaultValue cannot be null")), defaultText, min,
        minExclusive, max, maxLength, rule, ruleText, secret, description);
  }

  /** Describes a default that is computed, not fixed (e.g. {@code pid@host-random}). */
  public Setting<T> defaultText(String text) {
    return copy(name, defaultValue, text, min, minExclusive, max, maxLength, rule, ruleText, secret, description);
  }

  /** Inclusive bounds; for numbers and durations. */
  public Setting<T> range(T min, T max) {
    requireOrdered();
    return copy(name, defaultValue, defaultText, min, false, max, maxLength, rule, ruleText, secret, description);
  }

  /** An inclusive lower bound; for numbers and durations. */
  public Setting<T> atLeast(T min) {
    requireOrdered();
    return copy(name, defaultValue, defaultText, min, false, max, maxLength, rule, ruleText, secret, description);
  }

  /** Greater than zero; for numbers and durations. */
  @SuppressWarnings("unchecked")
  public Setting<T> positive() {
    requireOrdered();
    Object zero = switch (type) {
      case INT -> 0;
      case LONG -> 0L;
      case DOUBLE -> 0.0;
      default -> Duration.ZERO;
    };
    return copy(name, defaultValue, defaultText, (T) zero, true, max, maxLength, rule, ruleText, secret, description);
  }

  /** 1 to {@code max} characters, not blank; for texts and each item of a list. */
  public Setting<T> length(int max) {
    if (type != Type.STRING && type != Type.LIST) {
      throw new IllegalStateException(name + ": length applies to texts and lists");
    }
    return copy(name, defaultValue, defaultText, min, minExclusive, this.max, max, rule, ruleText, secret, description);
  }

  /**
   * Any other condition, e.g. {@code valid(v -> v == -1 || v >= 1, "-1 (no limit) or >= 1")}.
   *
   * @param text what a valid value is, completing "{@code name must be ...}"
   */
  public Setting<T> valid(Predicate<T> condition, String text) {
    return copy(name, defaultValue, defaultText, min, minExclusive, max, maxLength,
        Objects.requireNonNull(condition, "condition cannot be null"), Objects.requireNonNull(text), secret,
        description);
  }

  /** Marks the value secret: never shown in errors, logs or listings. */
  public Setting<T> asSecret() {
    return copy(name, defaultValue, defaultText, min, minExclusive, max, maxLength, rule, ruleText, true, description);
  }

  /** One line for people: what the setting does (the limits and default are added where shown). */
  public Setting<T> description(String text) {
    return copy(name, defaultValue, defaultText, min, minExclusive, max, maxLength, rule, ruleText, secret,
        Objects.requireNonNull(text, "description cannot be null"));
  }

  /** The same setting under another name (a catalogue prefixes the settings of a group). */
  public Setting<T> named(String newName) {
    Setting<T> probe = of(newName, type, javaType);
    return new Setting<>(probe.name, type, javaType, defaultValue, defaultText, min, minExclusive, max, maxLength,
        rule, ruleText, secret, description);
  }

  private void requireOrdered() {
    if (type != Type.INT && type != Type.LONG && type != Type.DOUBLE && type != Type.DURATION) {
      throw new IllegalStateException(name + ": bounds apply to numbers and durations");
    }
  }

  public String name() {
    return name;
  }

  public Type type() {
    return type;
  }

  /** {@code Integer.class}, {@code Duration.class}, the enum's class, {@code List.class}, {@code Map.class} … */
  public Class<?> javaType() {
    return javaType;
  }

  /** The default, or null when there is none (required, or computed: see {@link #defaultText()}). */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean secret() {
    return secret;
  }

  public String description() {
    return description;
  }

  public T min() {
    return min;
  }

  public T max() {
    return max;
  }

  /** True when the lower bound itself is not allowed ({@link #positive()}). */
  public boolean minExclusive() {
    return minExclusive;
  }

  /** The longest text (or list item) allowed, 0 when unlimited. */
  public int maxLength() {
    return maxLength;
  }

  /** The enum's constants; empty for other types. */
  public List<?> allowedValues() {
    return type == Type.ENUM ? List.of(javaType.getEnumConstants()) : List.of();
  }

  /** The default as text ({@link #format}), or the computed default's description, or "". */
  public String defaultText() {
    return defaultValue != null ? format(defaultValue) : defaultText != null ? defaultText : "";
  }

  /** The limits for people, e.g. {@code 1–10000}, {@code ≥ 1s}, {@code > 0}, {@code DELETE, MARK}; "" if none. */
  public String limits() {
    List<String> parts = new ArrayList<>();
    if (min != null && max != null) {
      parts.add(formatBound(min) + "–" + formatBound(max));
    } else if (min != null) {
      parts.add((minExclusive ? "> " : "≥ ") + formatBound(min));
    } else if (max != null) {
      parts.add("≤ " + formatBound(max));
    }
    if (maxLength > 0) {
      parts.add((type == Type.LIST ? "each " : "") + "1–" + maxLength + " characters");
    }
    if (type == Type.ENUM) {
      parts.add(allowedValues().stream().map(String::valueOf).collect(Collectors.joining(", ")));
    }
    if (ruleText != null) {
      parts.add(ruleText);
    }
    return String.join("; ", parts);
  }

  /** {@link #check(Object, String)} under this setting's own name. */
  public T check(T value) {
    return check(value, name);
  }

  /**
   * Returns {@code value} if it is within the limits.
   *
   * @param shownName the name the error gives, e.g. {@code twinbox.relay.batch-size}
   * @throws NullPointerException when {@code value} is null
   * @throws IllegalArgumentException naming the setting and the limit, e.g. {@code "batchSize must
   *     be within [1, 10000], was 0"}
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public T check(T value, String shownName) {
    Objects.requireNonNull(value, shownName + " cannot be null");
    if (!javaType.isInstance(value)) {
      throw new IllegalArgumentException(shownName + " must be a " + javaType.getSimpleName() + ", was a "
          + value.getClass().getSimpleName());
    }
    String was = secret || type == Type.STRING || type == Type.LIST || type == Type.MAP ? "" : ", was " + format(value);
    if (min != null || max != null) {
      Comparable c = (Comparable) value;
      boolean low = min != null && (minExclusive ? c.compareTo(min) <= 0 : c.compareTo(min) < 0);
      boolean high = max != null && c.compareTo(max) > 0;
      if (low || high) {
        String limit = min != null && max != null ? "within [" + formatBound(min) + ", " + formatBound(max) + "]"
            : min != null ? (minExclusive ? "> " : ">= ") + formatBound(min) : "<= " + formatBound(max);
        throw new IllegalArgumentException(shownName + " must be " + limit + was);
      }
    }
    if (maxLength > 0) {
      List<?> items = type == Type.LIST ? (List<?>) value : List.of(value);
      for (Object item : items) {
        String s = item == null ? "" : item.toString();
        if (s.isBlank() || s.length() > maxLength) {
          throw new IllegalArgumentException(shownName + (type == Type.LIST ? " items" : "") + " must be 1–"
              + maxLength + " non-blank characters");
        }
      }
    }
    if (rule != null && !rule.test(value)) {
      throw new IllegalArgumentException(shownName + " must be " + ruleText + was);
    }
    return value;
  }

  /** {@link #parse(String, String)} under this setting's own name. */
  public T parse(String text) {
    return parse(text, name);
  }

  /**
   * Reads a value from text (a properties file, an environment variable) and checks it. Durations
   * are {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 30d} or ISO-8601 ({@code PT5M});
   * enums match case-insensitively, with {@code -} for {@code _}; lists are comma-separated.
   *
   * @throws IllegalArgumentException naming {@code shownName} (the value only when not secret)
   */
  public T parse(String text, String shownName) {
    return check(SettingText.parse(this, text, shownName), shownName);
  }

  /**
   * A value as text that {@link #parse} reads back and Spring Boot binds: durations in their
   * largest exact unit ({@code 100ms}, {@code 10s}, {@code 5m}, {@code 90d}), enums by name, lists
   * comma-separated. A map shows its keys only.
   */
  public String format(Object value) {
    return SettingText.format(this, value);
  }

  /** Bounds as text; "> 0" reads better than "> 0s" for a positive duration. */
  private String formatBound(Object bound) {
    return bound instanceof Duration d && d.isZero() && minExclusive ? "0" : format(bound);
  }

  @Override
  public String toString() {
    return "Setting[" + name + ": " + type + (defaultValue == null ? "" : " = " + defaultText())
        + (limits().isEmpty() ? "" : " (" + limits() + ")") + (secret ? ", secret" : "") + "]";
  }
}
