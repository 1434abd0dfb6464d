package io.twinbox.spi;

import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.internal.EventRules;
import io.twinbox.internal.InboxColumns;
import io.twinbox.internal.InboxIds;
import io.twinbox.internal.PayloadHash;
import io.twinbox.internal.RfcTimes;
import io.twinbox.internal.StorableText;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The one wire model of every broker binding: what a consumer accepts as a CloudEvent, so that
 * Kafka, RabbitMQ and NATS reject the same things, and the ids under which unreadable items are
 * parked. A binding ({@link MessageSource}) collects the event's attributes by their CloudEvents
 * names (text as it arrived; {@link #utf8} decodes header bytes strictly) and hands them here with
 * the data; it supplies only the protocol mapping (headers and properties to attributes).
 *
 * <p>Refused, each with a reason naming the attribute and never quoting the content: a missing
 * {@code specversion} (or one other than 1.0), {@code id}, {@code type} or {@code source}; a
 * {@code source} that is not a URI reference; an {@code id} longer than 255 characters or holding
 * control characters; a {@code datacontenttype} other than JSON; data that is not strict UTF-8 or
 * not one JSON value; a {@code dataversion} that is not an integer ≥ 1, a {@code sequence} that is
 * not an integer ≥ 0, a {@code time} that is not RFC 3339. Absent data is JSON {@code null}.
 * Overlong attributes other than the id are accepted: a handler can use them, and a parked row
 * clips them (the parked row). Stateless and thread-safe.
 */
public final class WireEvents {
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
  /** Dead-letter extension: why the event went to FAILED (its {@code last_error}). */
  public static final String DLQ_REASON = "dlqreason";
  /** Dead-letter extension: failed publish attempts, an Integer. */
  public static final String DLQ_ATTEMPTS = "dlqattempts";
  /** Dead-letter extension: when the first attempt failed, RFC 3339 in UTC. */
  public static final String DLQ_FIRST_FAILURE = "dlqfirstfailure";
  /** Dead-letter extension of a parked message: the consumer that parked it. */
  public static final String DLQ_CONSUMER = "dlqconsumer";
  /** Dead-letter extension of a parked message: when it was parked, RFC 3339 in UTC. */
  public static final String DLQ_PARKED_AT = "dlqparkedat";
  /** Dead-letter extension: when the last attempt failed, RFC 3339 in UTC. */
  public static final String DLQ_LAST_FAILURE = "dlqlastfailure";

  /** The inbox type of a message that could not be read. */
  public static final String UNREADABLE = "unreadable";

  private WireEvents() {}

  /** Either a message or the reason it could not be read. */
  public record Read(InboxMessage message, String failure) {
    public boolean ok() {
      return failure == null;
    }
  }

  /**
   * The message in {@code attributes} and {@code data}; or, when that is refused, the reason and
   * the stand-in {@code unreadable} gives (see {@link #unreadable}) to park in its place. The stand-in
   * is made only for a refused message: most are not, and it decodes the body once more.
   *
   * @param data the body, {@code null} when there is none
   * @param userHeaders the binding's other headers, already strictly decoded
   */
  public static Read read(Map<String, String> attributes, byte[] data, Map<String, String> userHeaders,
      String origin, Supplier<InboxMessage> unreadable) {
    String id = attributes.get(ID);
    if (!"1.0".equals(attributes.get(SPECVERSION)) || id == null || attributes.get(TYPE) == null
        || attributes.get(SOURCE) == null) {
      return new Read(unreadable.get(), "not a CloudEvent 1.0 (specversion, id, type or source missing)");
    }
    String contentType = attributes.get(DATA_CONTENT_TYPE);
    if (contentType != null && !isJson(contentType)) {
      return new Read(unreadable.get(), "unsupported datacontenttype " + StorableText.clip(contentType, 100)
          + " (JSON expected)");
    }
    try {
      EventRules.optionalText("id", id, InboxColumns.ID);
      requireUriReference(attributes.get(SOURCE));
      String payload = data == null || data.length == 0 ? "null" : utf8("data", data);
      EventRules.requireWellFormedJson("data", payload);
      InboxMessage m = new InboxMessage(id, attributes.get(TYPE),
          (int) integer(DATA_VERSION, attributes.get(DATA_VERSION), 1, 1, Integer.MAX_VALUE),
          attributes.get(SOURCE), attributes.get(AGGREGATE_TYPE), attributes.get(SUBJECT),
          integer(SEQUENCE, attributes.get(SEQUENCE), 0, 0, Long.MAX_VALUE), payload, userHeaders,
          attributes.get(CORRELATION_ID), attributes.get(CAUSATION_ID), attributes.get(TRACEPARENT),
          time(attributes.get(TIME)), origin);
      return new Read(m, null);
    } catch (InvalidEventException e) {
      String named = StorableText.isClean(id) && id.length() <= InboxColumns.ID ? " " + id : "";
      return new Read(unreadable.get(), "unreadable CloudEvent" + named + ": " + e.getMessage());
    }
  }

  /**
   * A stand-in to park for what could not be read: type {@value #UNREADABLE}, the body as text when
   * it is strict UTF-8 without NUL, else {@code base64:} of the bytes.
   */
  public static InboxMessage unreadable(String id, byte[] body, String aggregateId, String origin) {
    byte[] bytes = body == null ? new byte[0] : body;
    String text = strictOrNull(bytes);
    String payload = text != null && !StorableText.hasNul(text) ? text
        : "base64:" + Base64.getEncoder().encodeToString(bytes);
    return new InboxMessage(id, UNREADABLE, 1, null, null, aggregateId, 0, payload, Map.of(), null, null, null, null,
        origin);
  }

  /**
   * {@code bytes} decoded as UTF-8, refusing malformed input (never replaced by U+FFFD).
   *
   * @throws InvalidEventException naming {@code field} and the byte offset
   */
  public static String utf8(String field, byte[] bytes) {
    String text = unlessMalformed(bytes);
    return text != null ? text : strictUtf8(field, bytes);
  }

  /** A header's value as strict UTF-8; a failure names the header (clipped to 64 characters). */
  public static String headerText(String name, byte[] bytes) {
    String text = unlessMalformed(bytes);
    return text != null ? text : strictUtf8("header " + StorableText.clip(name, 64), bytes);
  }

  /**
   * {@code bytes} as UTF-8 by the JDK's fast decoder, which replaces malformed input by U+FFFD;
   * {@code null} when the text holds U+FFFD, which may be a replacement (or the character itself):
   * then only the strict decoder can tell, and say where.
   */
  private static String unlessMalformed(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    return text.indexOf('\uFFFD') < 0 ? text : null;
  }

  private static String strictUtf8(String field, byte[] bytes) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      return decoder.decode(in).toString();
    } catch (CharacterCodingException e) {
      throw new InvalidEventException(field, "is not valid UTF-8 (near byte " + in.position() + ")");
    }
  }

  /** {@code text} cut to {@code max} characters, for a reason that quotes a header name or value. */
  public static String clip(String text, int max) {
    return StorableText.clip(text, max);
  }

  /**
   * The inbox id of an unreadable item found at {@code place} (a Kafka offset, a stream sequence,
   * an AMQP message id): {@code prefix + place}, or a digest of it when it is too long or not
   * storable, so that a redelivery of the same item is recognised.
   */
  public static String placeId(String prefix, String place) {
    return InboxIds.synthetic(prefix, place);
  }

  /** The inbox id of an unreadable item known only by its content: {@code prefix} + {@code sha256:<hex>}. */
  public static String contentId(String prefix, byte[] body) {
    return prefix + "sha256:" + PayloadHash.sha256(body == null ? new byte[0] : body);
  }

  private static String strictOrNull(byte[] bytes) {
    try {
      return utf8("body", bytes);
    } catch (InvalidEventException e) {
      return null;
    }
  }

  /** JSON media types: {@code application/json}, {@code text/json}, {@code *}{@code /*+json}, with parameters. */
  public static boolean isJson(String contentType) {
    if (contentType.equals(WireAttributes.JSON)) {
      return true; // what every Twinbox publisher writes
    }
    String type = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return type.equals("application/json") || type.equals("text/json")
        || (type.endsWith("+json") && type.indexOf('/') > 0);
  }

  private static void requireUriReference(String source) {
    if (isPlainAbsolutePath(source)) {
      return;
    }
    try {
      new URI(source);
    } catch (URISyntaxException e) {
      throw new InvalidEventException("source", "is not a URI reference (index " + e.getIndex() + ")");
    }
    if (source.isEmpty()) {
      throw new InvalidEventException("source", "is empty");
    }
  }

  /**
   * True for a source such as {@code /orders}: a path from the root (not {@code //}, which starts an
   * authority) of letters, digits and {@code -._~:@/} only, which {@link URI} always accepts; any
   * other source is parsed.
   */
  private static boolean isPlainAbsolutePath(String source) {
    int n = source.length();
    if (n == 0 || source.charAt(0) != '/' || (n > 1 && source.charAt(1) == '/')) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = source.charAt(i);
      boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
          || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '/';
      if (!plain) {
        return false;
      }
    }
    return true;
  }

  private static long integer(String attribute, String value, long absent, long min, long max) {
    if (value == null) {
      return absent;
    }
    long n;
    try {
      n = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw new InvalidEventException(attribute, "is not an integer");
    }
    if (n < min || n > max) {
      throw new InvalidEventException(attribute, "must be within [" + min + ", " + max + "]");
    }
    return n;
  }

  private static Instant time(String value) {
    if (value == null) {
      return null;
    }
    String text = value.strip();
    Instant utc = RfcTimes.utcOrNull(text);
    if (utc != null) {
      return utc;
    }
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidEventException("time", "is not an RFC 3339 timestamp");
    }
  }
}
