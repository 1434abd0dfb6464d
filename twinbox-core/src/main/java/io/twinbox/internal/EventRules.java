package io.twinbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import io.twinbox.InvalidEventException;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** The write-time rules for event fields. Messages name the field and the limit, never the value. */
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

  private static final JsonFactory JSON = JsonFactory.builder().build();

  private EventRules() {}

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

  /** Checks that the text is exactly one well-formed JSON value; streaming, no tree is built. */
  public static void requireJson(String field, String json) {
    try (JsonParser p = JSON.createParser(json)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new InvalidEventException(field, "is empty; it must be a JSON value");
      }
      p.skipChildren();
      if (p.nextToken() != null) {
        throw new InvalidEventException(field, "has trailing content after the JSON value");
      }
    } catch (StreamReadException e) {
      String where = e.getLocation() == null ? ""
          : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
      throw new InvalidEventException(field, "is not valid JSON" + where);
    } catch (IOException e) {
      throw new InvalidEventException(field, "could not be read as JSON");
    }
  }
}
