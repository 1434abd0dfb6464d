package io.twinbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.twinbox.InvalidEventException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Encodes user headers as a flat JSON object of strings, and back (strictly: see {@link #fromJson}). */
public final class Headers {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  private Headers() {}

  public static String toJson(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return "{}";
    }
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      for (Map.Entry<String, String> h : headers.entrySet()) {
        g.writeStringField(h.getKey(), h.getValue());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Decodes stored headers. Anything but a JSON object whose values are strings, each name once,
   * is refused with an {@link InvalidEventException} for {@code headers} that says what was found
   * (a JSON null, an array, a number value …), never the content: plain-SQL writers can store such
   * rows, and the relay fails them with this reason.
   */
  public static Map<String, String> fromJson(String json) {
    if (json == null) {
      throw new InvalidEventException("headers", "is NULL, not a JSON object");
    }
    if (json.equals("{}")) {
      return Map.of();
    }
    Map<String, String> result = new LinkedHashMap<>();
    try (JsonParser p = JSON.createParser(json)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        throw new InvalidEventException("headers", "is " + kind(t) + ", not a JSON object");
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (value != JsonToken.VALUE_STRING) {
          throw new InvalidEventException("headers", "has a value that is " + kind(value) + "; values must be strings");
        }
        if (result.put(name, p.getText()) != null) {
          throw new InvalidEventException("headers", "has a name twice");
        }
      }
      if (p.nextToken() != null) {
        throw new InvalidEventException("headers", "has trailing content after the JSON object");
      }
    } catch (IOException e) {
      throw new InvalidEventException("headers", "is not valid JSON");
    }
    return Collections.unmodifiableMap(result);
  }

  private static String kind(JsonToken t) {
    if (t == null) {
      return "empty";
    }
    return switch (t) {
      case START_OBJECT -> "a JSON object";
      case START_ARRAY -> "a JSON array";
      case VALUE_STRING -> "a JSON string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a JSON number";
      case VALUE_TRUE, VALUE_FALSE -> "a JSON boolean";
      case VALUE_NULL -> "a JSON null";
      default -> "not a JSON value";
    };
  }
}
