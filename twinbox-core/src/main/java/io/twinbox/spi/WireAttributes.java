package io.twinbox.spi;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The other half of the one wire model ({@link WireEvents} reads): the CloudEvents 1.0 attributes
 * of an outbox message, as every transport writes them. A transport supplies only its protocol
 * binding — the Kafka binding's {@code ce_} headers, the AMQP binding's {@code cloudEvents:}
 * headers and {@code content-type} property, the NATS binding's percent-encoded {@code ce-}
 * headers — and writes the user's headers under their own names.
 *
 * <p>Attributes, in this order, those absent in the message left out: {@code specversion} (1.0),
 * {@code id}, {@code source}, {@code type}, {@code datacontenttype} ({@value #JSON}), {@code subject}
 * (the aggregate id), {@code time} (when the event occurred), and the extensions {@code
 * aggregatetype}, {@code sequence} (a String, as in CloudEvents' documented sequence extension:
 * CloudEvents Integer is 32-bit and the sequence a long), {@code partitionkey} (the message key),
 * {@code dataversion} (an Integer), {@code correlationid}, {@code causationid}, {@code
 * traceparent}. Values are typed as CloudEvents types them: {@link String}, {@link URI} for the
 * source, {@link Instant} for the time, {@link Integer} for the data version; {@link #text} is the
 * canonical string of each. Stateless and thread-safe.
 */
public final class WireAttributes {
  /** The source when the relay names none. */
  public static final URI DEFAULT_SOURCE = URI.create("/twinbox");
  /** The {@code datacontenttype} of every message Twinbox writes. */
  public static final String JSON = "application/json";

  /**
   * A publisher's reason to hold every message back (UNAVAILABLE, nothing failed) while the relay's
   * source is not a URI-reference: the relay's configuration is wrong, not the event.
   */
  public static final String INVALID_SOURCE =
      "the relay's CloudEvents source is not a URI-reference; fix it in Relay.Builder.source";

  private WireAttributes() {}

  /**
   * The relay's source as a URI-reference, as CloudEvents requires; {@link #DEFAULT_SOURCE} when
   * none is set.
   *
   * @throws IllegalArgumentException when it is not one
   */
  public static URI source(String source) {
    return source == null || source.isBlank() ? DEFAULT_SOURCE : URI.create(source);
  }

  /** {@link #source}, or {@code null} when {@code source} is not a URI-reference ({@link #INVALID_SOURCE}). */
  public static URI sourceOrNull(String source) {
    try {
      return source(source);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The attributes of {@code m} published from {@code source}, by CloudEvents name, in the order above. */
  public static Map<String, Object> of(OutboxMessage m, URI source) {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put(WireEvents.SPECVERSION, "1.0");
    a.put(WireEvents.ID, m.id().toString());
    a.put(WireEvents.SOURCE, source);
    a.put(WireEvents.TYPE, m.type());
    a.put(WireEvents.DATA_CONTENT_TYPE, JSON);
    optional(a, WireEvents.SUBJECT, m.aggregateId());
    optional(a, WireEvents.TIME, m.occurredAt());
    optional(a, WireEvents.AGGREGATE_TYPE, m.aggregateType());
    a.put(WireEvents.SEQUENCE, Long.toString(m.sequence()));
    a.put(WireEvents.PARTITION_KEY, m.key());
    a.put(WireEvents.DATA_VERSION, m.version());
    optional(a, WireEvents.CORRELATION_ID, m.correlationId());
    optional(a, WireEvents.CAUSATION_ID, m.causationId());
    optional(a, WireEvents.TRACEPARENT, m.traceparent());
    return a;
  }

  /**
   * The attributes of a dead letter: those of its event ({@link #of(OutboxMessage, URI)}: the
   * original id, source, type, time and extensions), followed by the dead-letter extensions {@code
   * dlqreason}, {@code dlqattempts} (an Integer), {@code dlqfirstfailure} and {@code dlqlastfailure}
   * (times, as {@link Instant}; absent ones left out).
   */
  public static Map<String, Object> of(DeadLetter d, URI source) {
    Map<String, Object> a = of(d.message(), source);
    optional(a, WireEvents.DLQ_REASON, d.reason() == null || d.reason().isEmpty() ? null : d.reason());
    a.put(WireEvents.DLQ_ATTEMPTS, Math.max(1, d.attempts()));
    optional(a, WireEvents.DLQ_FIRST_FAILURE, d.firstFailedAt());
    optional(a, WireEvents.DLQ_LAST_FAILURE, d.lastFailedAt());
    return a;
  }

  /**
   * The attributes of a parked inbox message forwarded to a dead-letter destination: its original
   * {@code id}, {@code source} (or {@code defaultSource} when it had none or not a URI), {@code type},
   * {@code subject}, {@code time} and extensions as parked, {@code datacontenttype} JSON (text/plain
   * for an {@code unreadable} stand-in, whose payload is the raw body), and the extensions {@code
   * dlqreason}, {@code dlqattempts}, {@code dlqconsumer} and {@code dlqparkedat}.
   */
  public static Map<String, Object> of(ParkedLetter p, URI defaultSource) {
    io.twinbox.InboxMessage m = p.message();
    Map<String, Object> a = new LinkedHashMap<>();
    a.put(WireEvents.SPECVERSION, "1.0");
    a.put(WireEvents.ID, m.id());
    URI source = m.source() == null ? null : sourceOrNull(m.source());
    a.put(WireEvents.SOURCE, source == null ? defaultSource : source);
    a.put(WireEvents.TYPE, m.type());
    a.put(WireEvents.DATA_CONTENT_TYPE, WireEvents.UNREADABLE.equals(m.type()) ? "text/plain" : JSON);
    optional(a, WireEvents.SUBJECT, m.aggregateId());
    optional(a, WireEvents.TIME, m.time());
    optional(a, WireEvents.AGGREGATE_TYPE, m.aggregateType());
    a.put(WireEvents.SEQUENCE, Long.toString(m.sequence()));
    a.put(WireEvents.DATA_VERSION, m.version());
    optional(a, WireEvents.CORRELATION_ID, m.correlationId());
    optional(a, WireEvents.CAUSATION_ID, m.causationId());
    optional(a, WireEvents.TRACEPARENT, m.traceparent());
    optional(a, WireEvents.DLQ_REASON, p.reason());
    a.put(WireEvents.DLQ_ATTEMPTS, Math.max(0, p.attempts()));
    optional(a, WireEvents.DLQ_CONSUMER, p.consumer());
    optional(a, WireEvents.DLQ_PARKED_AT, p.parkedAt());
    return a;
  }

  /** The canonical string of an attribute value: RFC 3339 in UTC for a time, decimal for an integer. */
  public static String text(Object value) {
    return value.toString(); // Instant.toString is RFC 3339 in UTC, with seconds always written
  }

  private static void optional(Map<String, Object> a, String name, Object value) {
    if (value != null) {
      a.put(name, value);
    }
  }
}
