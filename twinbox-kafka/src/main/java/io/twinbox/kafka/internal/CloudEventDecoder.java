package io.twinbox.kafka.internal;

import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.internal.EventRules;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a Kafka record written in CloudEvents binary (or structured) mode into an
 * {@link InboxMessage}. Anything that is not a readable CloudEvent with a JSON payload becomes a
 * {@link Decoded} failure with a reason, to be parked at once. Stateless and thread-safe.
 */
public final class CloudEventDecoder {
  private CloudEventDecoder() {}

  /** Either a message or the reason it could not be read. */
  public record Decoded(InboxMessage message, String failure) {
    public boolean ok() {
      return failure == null;
    }
  }

  public static String origin(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  public static Decoded decode(ConsumerRecord<String, byte[]> r) {
    CloudEvent e;
    try {
      e = KafkaMessageFactory.createReader(r.headers(), r.value()).toEvent();
    } catch (RuntimeException ex) {
      return failure(r, "not a CloudEvent: " + ex.getClass().getSimpleName());
    }
    try {
      CloudEventData data = e.getData();
      String payload = data == null ? "null" : new String(data.toBytes(), StandardCharsets.UTF_8);
      EventRules.requireJson("payload", payload);
      InboxMessage m = new InboxMessage(
          e.getId(),
          e.getType(),
          intExtension(e, CloudEventRecords.DATA_VERSION, 1),
          e.getSource() == null ? null : e.getSource().toString(),
          stringExtension(e, CloudEventRecords.AGGREGATE_TYPE),
          e.getSubject(),
          longExtension(e, CloudEventRecords.SEQUENCE),
          payload,
          userHeaders(r),
          stringExtension(e, CloudEventRecords.CORRELATION_ID),
          stringExtension(e, CloudEventRecords.CAUSATION_ID),
          stringExtension(e, CloudEventRecords.TRACEPARENT),
          e.getTime() == null ? null : e.getTime().toInstant(),
          origin(r));
      return new Decoded(m, null);
    } catch (InvalidEventException | NumberFormatException ex) {
      return failure(r, "unreadable CloudEvent " + e.getId() + ": " + ex.getMessage());
    }
  }

  private static Decoded failure(ConsumerRecord<String, byte[]> r, String reason) {
    byte[] value = r.value() == null ? new byte[0] : r.value();
    String text = new String(value, StandardCharsets.UTF_8);
    String payload = text.indexOf('\uFFFD') >= 0 ? "base64:" + Base64.getEncoder().encodeToString(value) : text;
    // The id of an unreadable record is its place in the log: a redelivery of it is recognised.
    InboxMessage m = new InboxMessage("kafka:" + origin(r), "unreadable", 1, null, null, r.key(), 0, payload,
        Map.of(), null, null, null, null, origin(r));
    return new Decoded(m, reason);
  }

  private static Map<String, String> userHeaders(ConsumerRecord<String, byte[]> r) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      String k = h.key();
      if (!k.startsWith("ce_") && !k.equalsIgnoreCase("content-type") && h.value() != null) {
        headers.put(k, new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return headers;
  }

  private static String stringExtension(CloudEvent e, String name) {
    Object v = e.getExtension(name);
    return v == null ? null : v.toString();
  }

  private static long longExtension(CloudEvent e, String name) {
    Object v = e.getExtension(name);
    return v == null ? 0L : Long.parseLong(v.toString());
  }

  private static int intExtension(CloudEvent e, String name, int fallback) {
    Object v = e.getExtension(name);
    return v == null ? fallback : Integer.parseInt(v.toString());
  }
}
