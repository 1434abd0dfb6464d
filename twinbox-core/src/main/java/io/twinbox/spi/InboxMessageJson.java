package io.twinbox.spi;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.twinbox.InboxMessage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An {@link InboxMessage} as one JSON text, for stores that keep a message whole (the ordering
 * guard's held messages). Every non-ASCII character is escaped, so the text holds no NUL and no
 * unpaired surrogate in raw form and fits any text column; {@link #read} gives the message back
 * exactly. Thread-safe.
 */
public final class InboxMessageJson {
  private static final JsonFactory JSON = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

  private InboxMessageJson() {}

  public static String write(InboxMessage m) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("id", m.id());
      g.writeStringField("type", m.type());
      g.writeNumberField("version", m.version());
      g.writeStringField("source", m.source());
      g.writeStringField("aggregateType", m.aggregateType());
      g.writeStringField("aggregateId", m.aggregateId());
      g.writeNumberField("sequence", m.sequence());
      g.writeStringField("payload", m.payload());
      g.writeObjectFieldStart("headers");
      for (Map.Entry<String, String> h : m.headers().entrySet()) {
        g.writeStringField(h.getKey(), h.getValue());
      }
      g.writeEndObject();
      g.writeStringField("correlationId", m.correlationId());
      g.writeStringField("causationId", m.causationId());
      g.writeStringField("traceparent", m.traceparent());
      g.writeStringField("time", m.time() == null ? null : m.time().toString());
      g.writeStringField("origin", m.origin());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** @throws IllegalArgumentException when {@code json} is not what {@link #write} wrote */
  public static InboxMessage read(String json) {
    Map<String, String> text = new LinkedHashMap<>();
    Map<String, String> headers = new LinkedHashMap<>();
    long version = 1;
    long sequence = 0;
    try (JsonParser p = JSON.createParser(json)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        switch (field) {
          case "version" -> version = p.getLongValue();
          case "sequence" -> sequence = p.getLongValue();
          case "headers" -> {
            expect(t, JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String name = p.currentName();
              p.nextToken();
              headers.put(name, p.getText());
            }
          }
          default -> text.put(field, t == JsonToken.VALUE_NULL ? null : p.getText());
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not a stored inbox message: " + e.getMessage(), e);
    }
    String time = text.get("time");
    return new InboxMessage(text.get("id"), text.get("type"), (int) version, text.get("source"),
        text.get("aggregateType"), text.get("aggregateId"), sequence, text.get("payload"), headers,
        text.get("correlationId"), text.get("causationId"), text.get("traceparent"),
        time == null ? null : Instant.parse(time), text.get("origin"));
  }

  private static void expect(JsonToken actual, JsonToken expected) {
    if (actual != expected) {
      throw new IllegalArgumentException("not a stored inbox message: expected " + expected + ", found " + actual);
    }
  }
}
