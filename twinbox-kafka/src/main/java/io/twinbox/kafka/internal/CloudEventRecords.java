package io.twinbox.kafka.internal;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.WireAttributes;
import io.twinbox.spi.WireEvents;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns an outbox message into a Kafka record in CloudEvents 1.0 binary content mode.
 *
 * <p>The attributes are core's ({@link WireAttributes}); the CloudEvents SDK's Kafka binding writes
 * them as the {@code ce_*} headers and {@code content-type}; this class only builds the event and
 * adds the user's headers under their own names (validated at write time never
 * to collide with the binding's names). Stateless and thread-safe.
 */
public final class CloudEventRecords {
  private CloudEventRecords() {}

  /** The CloudEvent of {@code m}'s attributes ({@link WireAttributes}) with its payload as JSON data. */
  public static CloudEvent toCloudEvent(OutboxMessage m, URI source) {
    return toCloudEvent(m, WireAttributes.of(m, source));
  }

  /** The CloudEvent of {@code attributes} (core's, e.g. a dead letter's) with {@code m}'s payload as JSON data. */
  public static CloudEvent toCloudEvent(OutboxMessage m, Map<String, Object> attributes) {
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withData(WireAttributes.JSON, BytesCloudEventData.wrap(m.payload().getBytes(StandardCharsets.UTF_8)));
    attributes.forEach((name, value) -> {
      switch (name) {
        case WireEvents.SPECVERSION, WireEvents.DATA_CONTENT_TYPE -> { } // v1() and withData set them
        case WireEvents.ID -> b.withId((String) value);
        case WireEvents.SOURCE -> b.withSource((URI) value);
        case WireEvents.TYPE -> b.withType((String) value);
        case WireEvents.SUBJECT -> b.withSubject((String) value);
        case WireEvents.TIME -> b.withTime(OffsetDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
        default -> {
          if (value instanceof Integer n) {
            b.withExtension(name, n);
          } else {
            b.withExtension(name, WireAttributes.text(value)); // a dead letter's failure times too
          }
        }
      }
    });
    return b.build();
  }

  /**
   * The record for {@code m} on {@code topic}: key = {@link OutboxMessage#key()}, value = the
   * payload's UTF-8 bytes, no partition and no timestamp (the producer chooses both).
   */
  public static ProducerRecord<String, byte[]> toRecord(String topic, OutboxMessage m, URI source) {
    return toRecord(topic, m, WireAttributes.of(m, source));
  }

  /** {@link #toRecord(String, OutboxMessage, URI)} with the given attributes (a dead letter's). */
  public static ProducerRecord<String, byte[]> toRecord(String topic, OutboxMessage m, Map<String, Object> attributes) {
    ProducerRecord<String, byte[]> record =
        KafkaMessageFactory.createWriter(topic, m.key()).writeBinary(toCloudEvent(m, attributes));
    Map<String, String> headers = m.headers();
    if (headers != null) {
      headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    }
    return record;
  }
}
