package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.internal.EventRules;
import io.twinbox.spi.OutboxMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The CloudEvents AMQP protocol binding (binary content mode), mapped by hand onto AMQP 0-9-1:
 * every attribute but {@code datacontenttype} is a header (AMQP 1.0 application property, which
 * RabbitMQ maps to 0-9-1 headers) named {@code cloudEvents:<attribute>}; {@code datacontenttype} is
 * the {@code content-type} property; the data is the body. The CloudEvents SDK has no binding for
 * the RabbitMQ Java client, hence this class. Readers accept the {@code cloudEvents_} separator too,
 * as binding version 1.0.3 allows. Stateless and thread-safe.
 */
public final class AmqpCloudEvents {
  /** The prefix written, from the released binding (1.0.2) that the CloudEvents SDKs implement. */
  public static final String PREFIX = "cloudEvents:";
  private static final String ALT_PREFIX = "cloudEvents_";
  public static final String CONTENT_TYPE = "application/json";
  public static final URI DEFAULT_SOURCE = URI.create("/twinbox");
  /** Persistent: written to disk by the broker before it confirms (to a durable queue). */
  public static final int PERSISTENT = 2;

  public static final String SPECVERSION = "specversion";
  public static final String ID = "id";
  public static final String SOURCE = "source";
  public static final String TYPE = "type";
  public static final String SUBJECT = "subject";
  public static final String TIME = "time";
  public static final String AGGREGATE_TYPE = "aggregatetype";
  public static final String SEQUENCE = "sequence";
  public static final String PARTITION_KEY = "partitionkey";
  public static final String DATA_VERSION = "dataversion";
  public static final String CORRELATION_ID = "correlationid";
  public static final String CAUSATION_ID = "causationid";
  public static final String TRACEPARENT = "traceparent";

  private AmqpCloudEvents() {}

  /** A message ready for {@code basicPublish}. */
  public record Encoded(AMQP.BasicProperties properties, byte[] body) {}

  /** Either a message or the reason it could not be read. */
  public record Decoded(InboxMessage message, String failure) {}

  /** The relay's source as a URI-reference; {@code /twinbox} when none is set. */
  public static URI source(String source) {
    return source == null || source.isBlank() ? DEFAULT_SOURCE : URI.create(source);
  }

  public static Encoded encode(OutboxMessage m, URI source) {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put(PREFIX + SPECVERSION, "1.0");
    h.put(PREFIX + ID, m.id().toString());
    h.put(PREFIX + SOURCE, source.toString());
    h.put(PREFIX + TYPE, m.type());
    optional(h, SUBJECT, m.aggregateId());
    if (m.occurredAt() != null) {
      h.put(PREFIX + TIME, m.occurredAt().toString()); // RFC 3339, UTC
    }
    optional(h, AGGREGATE_TYPE, m.aggregateType());
    // A string, as on Kafka: CloudEvents Integer is 32-bit and the sequence is a long.
    h.put(PREFIX + SEQUENCE, Long.toString(m.sequence()));
    h.put(PREFIX + PARTITION_KEY, m.key());
    h.put(PREFIX + DATA_VERSION, (long) m.version()); // CloudEvents Integer → AMQP long
    optional(h, CORRELATION_ID, m.correlationId());
    optional(h, CAUSATION_ID, m.causationId());
    optional(h, TRACEPARENT, m.traceparent());
    if (m.headers() != null) {
      h.putAll(m.headers());
    }
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .contentType(CONTENT_TYPE)
        .deliveryMode(PERSISTENT)
        .messageId(m.id().toString())
        .timestamp(m.occurredAt() == null ? null : Date.from(m.occurredAt()))
        .headers(h)
        .build();
    return new Encoded(props, m.payload().getBytes(StandardCharsets.UTF_8));
  }

  private static void optional(Map<String, Object> h, String attribute, String value) {
    if (value != null) {
      h.put(PREFIX + attribute, value);
    }
  }

  /**
   * Reads a delivery. Anything that is not a CloudEvent 1.0 with a JSON payload becomes a failure
   * with a reason, to be parked at once; its inbox id is {@code rabbitmq:} plus the AMQP message id,
   * or plus a hash of the body, so that its redeliveries are recognised.
   */
  public static Decoded decode(AMQP.BasicProperties props, byte[] body, String origin) {
    Map<String, Object> headers = props.getHeaders() == null ? Map.of() : props.getHeaders();
    Map<String, String> ce = new LinkedHashMap<>();
    Map<String, String> user = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : headers.entrySet()) {
      String k = e.getKey();
      String v = text(e.getValue());
      if (k.startsWith(PREFIX) || k.startsWith(ALT_PREFIX)) {
        ce.put(k.substring(PREFIX.length()).toLowerCase(Locale.ROOT), v);
      } else if (v != null && !brokerHeader(k)) {
        user.put(k, v);
      }
    }
    String payload = new String(body, StandardCharsets.UTF_8);
    if (!"1.0".equals(ce.get(SPECVERSION)) || ce.get(ID) == null || ce.get(TYPE) == null || ce.get(SOURCE) == null) {
      return failure(props, body, origin, "not a CloudEvent 1.0 (cloudEvents:specversion/id/type/source missing)");
    }
    String contentType = props.getContentType();
    if (contentType != null && !contentType.toLowerCase(Locale.ROOT).contains("json")) {
      return failure(props, body, origin, "unsupported content-type " + contentType + " (JSON expected)");
    }
    try {
      EventRules.requireJson("payload", payload);
      InboxMessage m = new InboxMessage(ce.get(ID), ce.get(TYPE), number(ce.get(DATA_VERSION), 1),
          ce.get(SOURCE), ce.get(AGGREGATE_TYPE), ce.get(SUBJECT), number(ce.get(SEQUENCE), 0L), payload, user,
          ce.get(CORRELATION_ID), ce.get(CAUSATION_ID), ce.get(TRACEPARENT),
          ce.get(TIME) == null ? null : Instant.parse(ce.get(TIME)), origin);
      return new Decoded(m, null);
    } catch (InvalidEventException | NumberFormatException | DateTimeParseException ex) {
      return failure(props, body, origin, "unreadable CloudEvent " + ce.get(ID) + ": " + ex.getMessage());
    }
  }

  private static boolean brokerHeader(String name) {
    String k = name.toLowerCase(Locale.ROOT);
    return k.startsWith("x-death") || k.startsWith("x-first-death") || k.startsWith("x-last-death")
        || k.startsWith("x-delivery-") || k.equals("x-delivery-count");
  }

  private static Decoded failure(AMQP.BasicProperties props, byte[] body, String origin, String reason) {
    String text = new String(body, StandardCharsets.UTF_8);
    String payload = text.indexOf('\uFFFD') >= 0 ? "base64:" + java.util.Base64.getEncoder().encodeToString(body) : text;
    String id = "rabbitmq:" + (props.getMessageId() != null ? props.getMessageId() : "sha256:" + sha256(body));
    if (id.length() > 255) {
      id = "rabbitmq:sha256:" + sha256(id.getBytes(StandardCharsets.UTF_8));
    }
    InboxMessage m = new InboxMessage(id, "unreadable", 1, null, null, null, 0, payload, Map.of(), null, null, null,
        null, origin);
    return new Decoded(m, reason);
  }

  /** Header values arrive as {@link LongString} for text; numbers and timestamps as themselves. */
  static String text(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof LongString || v instanceof byte[]) {
      byte[] bytes = v instanceof LongString ls ? ls.getBytes() : (byte[]) v;
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (v instanceof Date d) {
      return d.toInstant().toString();
    }
    return v.toString();
  }

  private static int number(String v, int fallback) {
    return v == null ? fallback : Integer.parseInt(v.trim());
  }

  private static long number(String v, long fallback) {
    return v == null ? fallback : Long.parseLong(v.trim());
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
