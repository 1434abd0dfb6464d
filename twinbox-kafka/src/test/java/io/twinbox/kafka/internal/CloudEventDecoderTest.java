package io.twinbox.kafka.internal;

import io.twinbox.spi.WireEvents;
import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxMessage;
import io.twinbox.testkit.contract.WireCases;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Kafka decoder accepts and refuses what the RabbitMQ and NATS decoders do ({@link WireCases}).
 * Before issue 22 it did not check the content type and read invalid UTF-8 as U+FFFD.
 */
class CloudEventDecoderTest {
  static ConsumerRecord<String, byte[]> record(WireCases.Case c) {
    RecordHeaders headers = new RecordHeaders();
    for (Map.Entry<String, byte[]> a : c.attributes().entrySet()) {
      headers.add(a.getKey().equals("datacontenttype") ? "content-type" : "ce_" + a.getKey(), a.getValue());
    }
    c.headers().forEach(headers::add);
    return new ConsumerRecord<>("orders", 3, 41L, 0L, TimestampType.CREATE_TIME, -1, -1, "o-1", c.data(), headers,
        Optional.empty());
  }

  static Iterable<WireCases.Case> cases() {
    return WireCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void acceptsAndRefusesWhatEveryConsumerDoes(WireCases.Case c) {
    WireEvents.Read d = CloudEventDecoder.decode(record(c));
    assertThat(d.ok()).as("%s: %s", c.name(), d.failure()).isEqualTo(c.accepted());
    if (!c.accepted()) {
      assertThat(d.message().id()).isEqualTo("kafka:orders-3@41");
      assertThat(d.message().type()).isEqualTo("unreadable");
    }
  }

  @Test
  void aGoodRecordIsReadWhole() {
    InboxMessage m = CloudEventDecoder.decode(record(WireCases.all().get(0))).message();
    assertThat(m).isEqualTo(new InboxMessage("w-good", "OrderPlaced", 2, "/orders", "Order", "o-1", 3,
        "{\"total\":1}", Map.of("tenant", "acme é"), "corr-1", null,
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", java.time.Instant.parse("2026-12-01T10:15:30.123Z"),
        "orders-3@41"));
  }

  @Test
  void anUnreadableValueIsKeptExactly() {
    byte[] value = {'a', 0, (byte) 0xff};
    ConsumerRecord<String, byte[]> r = new ConsumerRecord<>("orders", 0, 1L, "k".repeat(300), value);
    WireEvents.Read d = CloudEventDecoder.decode(r);
    assertThat(d.failure()).startsWith("not a CloudEvent");
    assertThat(d.message().payload()).isEqualTo("base64:" + java.util.Base64.getEncoder().encodeToString(value));
    assertThat(d.message().aggregateId()).as("clipped when parked").hasSize(300);
    assertThat(CloudEventDecoder.decode(new ConsumerRecord<>("orders", 0, 2L, null, "plain".getBytes(
        StandardCharsets.UTF_8))).message().payload()).isEqualTo("plain");
  }

  @Test
  void aTopicNameTooLongForAnIdStillGivesAStorableId() {
    String topic = "t".repeat(249);
    WireEvents.Read d = CloudEventDecoder.decode(new ConsumerRecord<>(topic, 0, 1L, null, new byte[0]));
    assertThat(d.message().id()).startsWith("kafka:sha256:").hasSizeLessThanOrEqualTo(255);
  }
}
