package io.twinbox.kafka;

import io.twinbox.spi.WireAttributes;
import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.twinbox.kafka.internal.CloudEventRecords;
import io.twinbox.spi.OutboxMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** The record Twinbox builds, read back with nothing but the CloudEvents SDK; needs no broker. */
class WireFormatTest {

  private static ProducerRecord<String, byte[]> encode(OutboxMessage m) {
    return CloudEventRecords.toRecord("orders", m, WireAttributes.source(m.source()));
  }

  private static Map<String, String> headers(ProducerRecord<String, byte[]> record) {
    Map<String, String> h = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      h.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return h;
  }

  @Test
  void everyAttributeBecomesItsBindingHeader() {
    OutboxMessage m = Messages.full("Order", "order-17", 42);
    ProducerRecord<String, byte[]> record = encode(m);

    assertThat(record.topic()).isEqualTo("orders");
    assertThat(record.key()).isEqualTo("order-17");
    assertThat(record.partition()).isNull();
    assertThat(record.timestamp()).isNull();
    assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(m.payload());
    assertThat(headers(record)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("ce_specversion", "1.0"),
        Map.entry("ce_id", "0195a3c4-1111-7abc-8def-0123456789ab"),
        Map.entry("ce_source", "/orders-service"),
        Map.entry("ce_type", "com.example.OrderCreated"),
        Map.entry("ce_subject", "order-17"),
        Map.entry("ce_time", "2025-03-01T10:15:30.123456Z"),
        Map.entry("content-type", "application/json"),
        Map.entry("ce_aggregatetype", "Order"),
        Map.entry("ce_sequence", "42"),
        Map.entry("ce_partitionkey", "order-17"),
        Map.entry("ce_dataversion", "2"),
        Map.entry("ce_correlationid", "corr-1"),
        Map.entry("ce_causationid", "cause-1"),
        Map.entry("ce_traceparent", Messages.TRACEPARENT),
        Map.entry("tenant", "acme"),
        Map.entry("x-region", "eu-west")));
  }

  @Test
  void theCloudEventsSdkReadsTheEventBack() {
    OutboxMessage m = Messages.full("Order", "order-17", Long.MAX_VALUE);
    ProducerRecord<String, byte[]> record = encode(m);
    try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
      CloudEvent e = deserializer.deserialize("orders", record.headers(), record.value());

      assertThat(e.getId()).isEqualTo(m.id().toString());
      assertThat(e.getSource()).isEqualTo(URI.create("/orders-service"));
      assertThat(e.getType()).isEqualTo("com.example.OrderCreated");
      assertThat(e.getSubject()).isEqualTo("order-17");
      assertThat(e.getTime()).isEqualTo(OffsetDateTime.ofInstant(Messages.OCCURRED_AT, ZoneOffset.UTC));
      assertThat(e.getDataContentType()).isEqualTo("application/json");
      assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo(m.payload());
      assertThat(e.getExtension("aggregatetype")).isEqualTo("Order");
      assertThat(e.getExtension("sequence")).isEqualTo(Long.toString(Long.MAX_VALUE));
      assertThat(e.getExtension("partitionkey")).isEqualTo("order-17");
      assertThat(e.getExtension("dataversion")).isEqualTo("2");
      assertThat(e.getExtension("correlationid")).isEqualTo("corr-1");
      assertThat(e.getExtension("causationid")).isEqualTo("cause-1");
      assertThat(e.getExtension("traceparent")).isEqualTo(Messages.TRACEPARENT);
    }
  }

  @Test
  void absentValuesAreLeftOutAndTheSourceDefaults() {
    OutboxMessage m = Messages.minimal("Ping");
    ProducerRecord<String, byte[]> record = encode(m);

    assertThat(record.key()).isEqualTo(m.id().toString());
    assertThat(headers(record)).containsOnlyKeys("ce_specversion", "ce_id", "ce_source", "ce_type", "ce_time",
        "content-type", "ce_aggregatetype", "ce_sequence", "ce_partitionkey", "ce_dataversion");
    assertThat(headers(record)).containsEntry("ce_source", "/twinbox").containsEntry("ce_sequence", "0")
        .containsEntry("ce_partitionkey", m.id().toString());
  }
}
