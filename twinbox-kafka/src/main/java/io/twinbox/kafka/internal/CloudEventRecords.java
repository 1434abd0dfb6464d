package io.twinbox.kafka.internal;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.twinbox.spi.OutboxMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns an outbox message into a Kafka record in CloudEvents 1.0 binary content mode.
 *
 * <p>The CloudEvents SDK writes the {@code ce_*} headers and {@code content-type}; this class only
 * builds the event and adds the user's headers under their own names (validated at write time never
 * to collide with the binding's names). Stateless and thread-safe.
 */
public final class CloudEventRecords {
  /** Used when the relay passes no source. */
  public static final URI DEFAULT_SOURCE = URI.create("/twinbox");
  public static final String DATA_CONTENT_TYPE = "application/json";

  // Extension names: lowercase a-z0-9 only, as CloudEvents 1.0 requires.
  public static final String AGGREGATE_TYPE = "aggregatetype";
  public static final String SEQUENCE = "sequence";
  public static final String PARTITION_KEY = "partitionkey";
  public static final String DATA_VERSION = "dataversion";
  public static final String CORRELATION_ID = "correlationid";
  public static final String CAUSATION_ID = "causationid";
  public static final String TRACEPARENT = "traceparent";

  private CloudEventRecords() {}

  /**
   * Parses the relay's source as a URI-reference, as CloudEvents requires.
   *
   * @throws IllegalArgumentException when it is not one
   */
  public static URI source(String source) {
    if (source == null || source.isBlank()) {
      return DEFAULT_SOURCE;
    }
    return URI.create(source);
  }

  /** The CloudEvent for {@code m}; attributes that are {@code null} in the message are left out. */
  public static CloudEvent toCloudEvent(OutboxMessage m, URI source) {
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withId(m.id().toString())
        .withSource(source)
        .withType(m.type())
        .withData(DATA_CONTENT_TYPE, BytesCloudEventData.wrap(m.payload().getBytes(StandardCharsets.UTF_8)))
        // A String, as in CloudEvents' documented "sequence" extension; CloudEvents Integer is
        // 32-bit and the sequence is a long. Binary mode carries the decimal text either way.
        .withExtension(SEQUENCE, Long.toString(m.sequence()))
        .withExtension(PARTITION_KEY, m.key())
        .withExtension(DATA_VERSION, m.version());
    if (m.aggregateId() != null) {
      b.withSubject(m.aggregateId());
    }
    if (m.occurredAt() != null) {
      b.withTime(OffsetDateTime.ofInstant(m.occurredAt(), ZoneOffset.UTC));
    }
    optional(b, AGGREGATE_TYPE, m.aggregateType());
    optional(b, CORRELATION_ID, m.correlationId());
    optional(b, CAUSATION_ID, m.causationId());
    optional(b, TRACEPARENT, m.traceparent());
    return b.build();
  }

  /**
   * The record for {@code m} on {@code topic}: key = {@link OutboxMessage#key()}, value = the
   * payload's UTF-8 bytes, no partition and no timestamp (the producer chooses both).
   */
  public static ProducerRecord<String, byte[]> toRecord(String topic, OutboxMessage m, URI source) {
    ProducerRecord<String, byte[]> record =
        KafkaMessageFactory.createWriter(topic, m.key()).writeBinary(toCloudEvent(m, source));
    Map<String, String> headers = m.headers();
    if (headers != null) {
      headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    }
    return record;
  }

  private static void optional(CloudEventBuilder b, String name, String value) {
    if (value != null) {
      b.withExtension(name, value);
    }
  }
}
