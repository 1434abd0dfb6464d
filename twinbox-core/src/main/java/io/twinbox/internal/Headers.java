package io.twinbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.twinbox.StoreException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Encodes user headers as a flat JSON object of strings, and back. */
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

  public static Map<String, String> fromJson(String json) {
    if (json == null || json.equals("{}")) {
      return Map.of();
    }
    Map<String, String> result = new LinkedHashMap<>();
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new StoreException("stored headers are not a JSON object", null);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        result.put(name, p.getValueAsString());
      }
    } catch (IOException e) {
      throw new StoreException("stored headers are not valid JSON", e);
    }
    return Collections.unmodifiableMap(result);
  }
}
