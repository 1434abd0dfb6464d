package io.twinbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import io.twinbox.InvalidEventException;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rules for event fields: checked at write ({@code OutboxEvent}), by the consumers' decoders,
 * and again by the relay on every row it claims (rows written by plain SQL never met the Java
 * writer). Messages name the field and the limit, never the value.
 */
public final class EventRules {
  public static final int MAX_NAME_LENGTH = 255;
  public static final int MAX_ID_LENGTH = 255;
  public static final int MAX_HEADERS = 64;
  public static final int MAX_HEADER_NAME_LENGTH = 128;
  public static final int MAX_HEADER_VALUE_LENGTH = 4096;

  /** Header names: tokens that every binding (Kafka, AMQP, NATS) can carry unchanged. */
  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private static final Pattern TRACEPARENT =
      Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

  /** Prefixes owned by the wire format or by brokers; a user header must not forge them. */
  private static final String[] RESERVED_PREFIXES = {
    "ce_", "ce-", "cloudevents", "twinbox", "nats-", "x-delivery-", "x-death", "x-first-death",
    "__typeid__", "__keytypeid__", "__contenttypeid__", "content-type", "traceparent", "tracestate"
  };

  /*
   * The range of PostgreSQL's numeric, which jsonb stores every JSON number as: at most 131072
   * digits before the decimal point and 16383 after, and an exponent below 2^30 - 1 in magnitude
   * (numeric_in refuses larger ones even for zero). The same rule on every store keeps a payload
   * portable: MariaDB would store 1e999999, and a PostgreSQL consumer could never park it.
   */
  private static final long MAX_NUMBER_WEIGHT = 131_071;
  private static final long MAX_NUMBER_SCALE = 16_383;
  private static final long MAX_NUMBER_EXPONENT = 1_073_741_822;

  private static final JsonFactory JSON = JsonFactory.builder().build();

  private EventRules() {}

  /**
   * The header-name prefixes no user header may start with (compared lower-case): owned by the
   * CloudEvents bindings, by Twinbox or by brokers. The schema's plain-SQL checks use the same list
   * (a test compares them).
   */
  public static List<String> reservedHeaderPrefixes() {
    return List.of(RESERVED_PREFIXES);
  }

  /**
   * The rules for the fields other than payload and headers, in the order {@code OutboxEvent}
   * checks them: type and aggregate type non-blank names, version ≥ 1, ids and trace context.
   */
  public static void checkEnvelope(String type, int version, String aggregateType, String aggregateId,
      String correlationId, String causationId, String traceparent) {
    requireName("type", type);
    if (version < 1) {
      throw new InvalidEventException("version", "must be >= 1, was " + version);
    }
    requireName("aggregateType", aggregateType);
    optionalText("aggregateId", aggregateId, MAX_ID_LENGTH);
    optionalText("correlationId", correlationId, MAX_ID_LENGTH);
    optionalText("causationId", causationId, MAX_ID_LENGTH);
    checkTraceparent(traceparent);
  }

  public static void requireName(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidEventException(field, "must not be blank");
    }
    optionalText(field, value, MAX_NAME_LENGTH);
  }

  public static void optionalText(String field, String value, int maxLength) {
    if (value == null) {
      return;
    }
    if (value.length() > maxLength) {
      throw new InvalidEventException(field, "is " + value.length() + " characters, limit " + maxLength);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new InvalidEventException(field, "contains a control character at index " + i);
      }
    }
  }

  public static Map<String, String> checkHeaders(Map<String, String> headers) {
    if (headers == null || headers.isEmpty()) {
      return Map.of();
    }
    if (headers.size() > MAX_HEADERS) {
      throw new InvalidEventException("headers", "has " + headers.size() + " entries, limit " + MAX_HEADERS);
    }
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String name = h.getKey();
      if (name == null || !HEADER_NAME.matcher(name).matches()) {
        throw new InvalidEventException("headers",
            "name must match " + HEADER_NAME.pattern() + " (ASCII letters, digits, '.', '_', '-')");
      }
      if (name.length() > MAX_HEADER_NAME_LENGTH) {
        throw new InvalidEventException("headers." + name, "name longer than " + MAX_HEADER_NAME_LENGTH);
      }
      String lower = name.toLowerCase(Locale.ROOT);
      for (String prefix : RESERVED_PREFIXES) {
        if (lower.startsWith(prefix)) {
          throw new InvalidEventException("headers." + name, "is reserved (prefix '" + prefix + "')");
        }
      }
      String value = h.getValue();
      if (value == null) {
        throw new InvalidEventException("headers." + name, "value must not be null");
      }
      optionalText("headers." + name, value, MAX_HEADER_VALUE_LENGTH);
    }
    return Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  public static void checkTraceparent(String traceparent) {
    if (traceparent != null && !TRACEPARENT.matcher(traceparent).matches()) {
      throw new InvalidEventException("traceparent", "must be a W3C traceparent (version-traceid-spanid-flags)");
    }
  }

  /**
   * Checks that the text is exactly one well-formed JSON value that every store keeps as it is:
   * no NUL character and no unpaired surrogate in a string or name (escaped or not), no number
   * outside PostgreSQL's numeric range (131072 digits before the decimal point, 16383 after). Streaming, no tree is
   * built. PostgreSQL's jsonb then still normalises the text (whitespace, key order, duplicate
   * keys), which changes no value.
   */
  public static void requireJson(String field, String json) {
    readJson(field, json, true);
  }

  /**
   * Checks only that the text is exactly one well-formed JSON value: what a consumer requires of
   * the data it receives. Data from other producers may hold what jsonb cannot store (an escaped
   * NUL, a huge number) and is still valid JSON that the handler may use; where the inbox must
   * store it (parking), it is stored as text.
   */
  public static void requireWellFormedJson(String field, String json) {
    readJson(field, json, false);
  }

  private static void readJson(String field, String json, boolean storable) {
    try (JsonParser p = JSON.createParser(json)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new InvalidEventException(field, "is empty; it must be a JSON value");
      }
      int depth = 0;
      do {
        switch (t) {
          case START_OBJECT, START_ARRAY -> depth++;
          case END_OBJECT, END_ARRAY -> depth--;
          case FIELD_NAME, VALUE_STRING -> {
            if (storable) {
              checkStorableText(field, p);
            }
          }
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
            if (storable) {
              checkStorableNumber(field, p);
            }
          }
          default -> { }
        }
      } while (depth > 0 && (t = p.nextToken()) != null);
      if (depth > 0) {
        throw new InvalidEventException(field, "ends inside an object or array");
      }
      if (p.nextToken() != null) {
        throw new InvalidEventException(field, "has trailing content after the JSON value");
      }
    } catch (StreamReadException e) {
      throw new InvalidEventException(field, "is not valid JSON" + where(e.getLocation()));
    } catch (IOException e) {
      throw new InvalidEventException(field, "could not be read as JSON");
    }
  }

  private static String where(JsonLocation at) {
    return at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
  }

  /** PostgreSQL's text (and so jsonb) has no NUL; a lone surrogate is no character at all. */
  private static void checkStorableText(String field, JsonParser p) throws IOException {
    String text = p.getText();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        throw new InvalidEventException(field, "contains the NUL character (\\u0000), which PostgreSQL cannot store"
            + where(p.currentTokenLocation()));
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidEventException(field, "contains an unpaired UTF-16 surrogate" + where(p.currentTokenLocation()));
      }
    }
  }

  private static void checkStorableNumber(String field, JsonParser p) throws IOException {
    if (!storableNumber(p.getText())) {
      throw new InvalidEventException(field, "has a number outside the range every store keeps (at most "
          + (MAX_NUMBER_WEIGHT + 1) + " digits before the decimal point and " + MAX_NUMBER_SCALE + " after)"
          + where(p.currentTokenLocation()));
    }
  }

  /** A JSON number's text (already well-formed) within PostgreSQL's numeric, as numeric_in judges it. */
  static boolean storableNumber(String text) {
    int n = text.length();
    int i = text.charAt(0) == '-' ? 1 : 0;
    int intStart = i;
    while (i < n && Character.isDigit(text.charAt(i))) {
      i++;
    }
    int intEnd = i;
    int fracStart = i;
    int fracEnd = i;
    if (i < n && text.charAt(i) == '.') {
      fracStart = ++i;
      while (i < n && Character.isDigit(text.charAt(i))) {
        i++;
      }
      fracEnd = i;
    }
    long exponent = 0;
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      boolean negative = text.charAt(i) == '-';
      if (text.charAt(i) == '-' || text.charAt(i) == '+') {
        i++;
      }
      while (i < n - 1 && text.charAt(i) == '0') {
        i++;
      }
      if (n - i > 10) {
        return false;
      }
      exponent = Long.parseLong(text.substring(i));
      exponent = negative ? -exponent : exponent;
    }
    if (Math.abs(exponent) > MAX_NUMBER_EXPONENT || Math.max(0, (fracEnd - fracStart) - exponent) > MAX_NUMBER_SCALE) {
      return false;
    }
    for (int d = intStart; d < intEnd; d++) {
      if (text.charAt(d) != '0') {
        return (intEnd - d - 1) + exponent <= MAX_NUMBER_WEIGHT;
      }
    }
    for (int d = fracStart; d < fracEnd; d++) {
      if (text.charAt(d) != '0') {
        return -(d - fracStart + 1) + exponent <= MAX_NUMBER_WEIGHT;
      }
    }
    return true; // zero
  }
}
