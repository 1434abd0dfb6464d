package io.twinbox.nats.internal;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.internal.EventRules;
import io.twinbox.spi.OutboxMessage;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CloudEvents NATS protocol binding (binary content mode, binding version 1.0.3), mapped by
 * hand: every attribute, {@code datacontenttype} included, is a header {@code ce-<attribute>} whose
 * value is the attribute's canonical string, percent-encoded (space, {@code "}, {@code %} and every
 * character outside printable ASCII become {@code %XX} of their UTF-8 bytes, upper-case); the data
 * is the body. User headers keep their names; their values are percent-encoded the same way, since
 * NATS headers carry printable ASCII only. Stateless and thread-safe.
 */
public final class NatsCloudEvents {
  public static final String PREFIX = "ce-";
  public static final String CONTENT_TYPE = "application/json";
  public static final URI DEFAULT_SOURCE = URI.create("/twinbox");

  public static final String SPECVERSION = "specversion";
  public static final String ID = "id";
  public static final String SOURCE = "source";
  public static final String TYPE = "type";
  public static final String SUBJECT = "subject";
  public static final String TIME = "time";
  public static final String DATA_CONTENT_TYPE = "datacontenttype";
  public static final String AGGREGATE_TYPE = "aggregatetype";
  public static final String SEQUENCE = "sequence";
  public static final String PARTITION_KEY = "partitionkey";
  public static final String DATA_VERSION = "dataversion";
  public static final String CORRELATION_ID = "correlationid";
  public static final String CAUSATION_ID = "causationid";
  public static final String TRACEPARENT = "traceparent";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private NatsCloudEvents() {}

  /** Either a message or the reason it could not be read. */
  public record Decoded(InboxMessage message, String failure) {}

  public static URI source(String source) {
    return source == null || source.isBlank() ? DEFAULT_SOURCE : URI.create(source);
  }

  /** The headers for {@code m}; {@code Nats-Msg-Id} is added by the publish options. */
  public static Headers headers(OutboxMessage m, URI source) {
    Headers h = new Headers();
    put(h, SPECVERSION, "1.0");
    put(h, ID, m.id().toString());
    put(h, SOURCE, source.toString());
    put(h, TYPE, m.type());
    put(h, DATA_CONTENT_TYPE, CONTENT_TYPE);
    put(h, SUBJECT, m.aggregateId());
    put(h, TIME, m.occurredAt() == null ? null : m.occurredAt().toString());
    put(h, AGGREGATE_TYPE, m.aggregateType());
    put(h, SEQUENCE, Long.toString(m.sequence()));
    put(h, PARTITION_KEY, m.key());
    put(h, DATA_VERSION, Integer.toString(m.version()));
    put(h, CORRELATION_ID, m.correlationId());
    put(h, CAUSATION_ID, m.causationId());
    put(h, TRACEPARENT, m.traceparent());
    if (m.headers() != null) {
      m.headers().forEach((k, v) -> h.add(k, encode(v)));
    }
    return h;
  }

  private static void put(Headers h, String attribute, String value) {
    if (value != null) {
      h.add(PREFIX + attribute, encode(value));
    }
  }

  /** Reads a JetStream message; anything not a CloudEvent 1.0 with a JSON payload is a failure. */
  public static Decoded decode(Message msg) {
    String origin = origin(msg);
    Map<String, String> ce = new LinkedHashMap<>();
    Map<String, String> user = new LinkedHashMap<>();
    byte[] body = msg.getData() == null ? new byte[0] : msg.getData();
    try {
      Headers headers = msg.getHeaders();
      if (headers != null) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
          String name = e.getKey().toLowerCase(Locale.ROOT);
          String value = e.getValue().isEmpty() ? null : decodeValue(e.getValue().get(0));
          if (name.startsWith(PREFIX)) {
            ce.put(name.substring(PREFIX.length()), value);
          } else if (value != null && !name.startsWith("nats-")) {
            user.put(e.getKey(), value);
          }
        }
      }
    } catch (IllegalArgumentException e) {
      return failure(msg, body, origin, "unreadable header: " + e.getMessage());
    }
    if (!"1.0".equals(ce.get(SPECVERSION)) || ce.get(ID) == null || ce.get(TYPE) == null || ce.get(SOURCE) == null) {
      return failure(msg, body, origin, "not a CloudEvent 1.0 (ce-specversion/id/type/source missing)");
    }
    String contentType = ce.get(DATA_CONTENT_TYPE);
    if (contentType != null && !contentType.toLowerCase(Locale.ROOT).contains("json")) {
      return failure(msg, body, origin, "unsupported datacontenttype " + contentType + " (JSON expected)");
    }
    String payload = new String(body, StandardCharsets.UTF_8);
    try {
      EventRules.requireJson("payload", payload);
      InboxMessage m = new InboxMessage(ce.get(ID), ce.get(TYPE),
          ce.get(DATA_VERSION) == null ? 1 : Integer.parseInt(ce.get(DATA_VERSION).trim()), ce.get(SOURCE),
          ce.get(AGGREGATE_TYPE), ce.get(SUBJECT),
          ce.get(SEQUENCE) == null ? 0 : Long.parseLong(ce.get(SEQUENCE).trim()), payload, user,
          ce.get(CORRELATION_ID), ce.get(CAUSATION_ID), ce.get(TRACEPARENT),
          ce.get(TIME) == null ? null : Instant.parse(ce.get(TIME)), origin);
      return new Decoded(m, null);
    } catch (InvalidEventException | NumberFormatException | DateTimeParseException e) {
      return failure(msg, body, origin, "unreadable CloudEvent " + ce.get(ID) + ": " + e.getMessage());
    }
  }

  /** {@code <stream>#<stream sequence>}, or the subject for a message outside JetStream. */
  public static String origin(Message msg) {
    if (msg.isJetStream()) {
      NatsJetStreamMetaData md = msg.metaData();
      return md.getStream() + "#" + md.streamSequence();
    }
    return msg.getSubject();
  }

  private static Decoded failure(Message msg, byte[] body, String origin, String reason) {
    String text = new String(body, StandardCharsets.UTF_8);
    String payload = text.indexOf('\uFFFD') >= 0 ? "base64:" + java.util.Base64.getEncoder().encodeToString(body) : text;
    // The id of an unreadable message is its place in the stream: a redelivery of it is recognised.
    InboxMessage m = new InboxMessage("nats:" + origin, "unreadable", 1, null, null, null, 0, payload, Map.of(), null,
        null, null, null, origin);
    return new Decoded(m, reason);
  }

  /** Percent-encodes as the NATS binding requires. */
  public static String encode(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > ' ' && c < 0x7f && c != '"' && c != '%') {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(value.length() + 16).append(value, 0, i);
      }
      int cp = value.codePointAt(i);
      if (Character.charCount(cp) == 2) {
        i++;
      }
      for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
        out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
      }
    }
    return out == null ? value : out.toString();
  }

  /**
   * Undoes double-quoting (older senders) and one round of percent-encoding; invalid UTF-8 is
   * refused.
   *
   * @throws IllegalArgumentException for a malformed escape or invalid UTF-8
   */
  public static String decodeValue(String raw) {
    String v = raw.strip();
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      StringBuilder unq = new StringBuilder(v.length());
      for (int i = 1; i < v.length() - 1; i++) {
        char c = v.charAt(i);
        if (c == '\\' && i + 1 < v.length() - 1) {
          c = v.charAt(++i);
        }
        unq.append(c);
      }
      v = unq.toString();
    }
    if (v.indexOf('%') < 0) {
      return v;
    }
    ByteBuffer bytes = ByteBuffer.allocate(v.length() * 4);
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '%') {
        if (i + 2 >= v.length()) {
          throw new IllegalArgumentException("truncated percent escape");
        }
        int hi = Character.digit(v.charAt(i + 1), 16);
        int lo = Character.digit(v.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("malformed percent escape");
        }
        bytes.put((byte) ((hi << 4) | lo));
        i += 2;
      } else {
        bytes.put(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    bytes.flip();
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("percent-encoded bytes are not valid UTF-8");
    }
  }
}
