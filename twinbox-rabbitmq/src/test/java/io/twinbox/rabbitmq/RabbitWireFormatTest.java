package io.twinbox.rabbitmq;

import io.twinbox.spi.WireEvents;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.twinbox.InboxMessage;
import io.twinbox.rabbitmq.internal.AmqpCloudEvents;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a message looks like on RabbitMQ, read back raw from the queue, and decoded again. */
class RabbitWireFormatTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  static OutboxMessage full() {
    Instant at = Instant.parse("2025-03-01T10:15:30.123456Z");
    return new OutboxMessage(7, UUID.fromString("0195a3c4-1111-7abc-8def-0123456789ab"), "Order", "o-42", 42, 3,
        "com.example.OrderPlaced", 2, "{\"total\":42,\"note\":\"naïve\"}", Map.of("tenant", "acme é"), "corr-1",
        "cause-1", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", at, at, 0, "/orders-service");
  }

  @Test
  void theWireFormatIsTheCloudEventsAmqpBindingInBinaryMode() throws Exception {
    String ex = "tbw." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    try (RabbitPublisher p = fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build()) {
      assertThat(p.send(full()).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
    }
    GetResponse r;
    try (Channel ch = fixture.admin().createChannel()) {
      r = ch.basicGet(t.queue(), true);
    }
    assertThat(r).isNotNull();
    assertThat(r.getEnvelope().getExchange()).isEqualTo(ex);
    assertThat(r.getEnvelope().getRoutingKey()).isEqualTo("com.example.OrderPlaced");
    var props = r.getProps();
    assertThat(props.getContentType()).isEqualTo("application/json");
    assertThat(props.getDeliveryMode()).isEqualTo(2);
    assertThat(props.getMessageId()).isEqualTo("0195a3c4-1111-7abc-8def-0123456789ab");
    assertThat(props.getTimestamp()).isEqualTo(new Date(Instant.parse("2025-03-01T10:15:30Z").toEpochMilli()));
    Map<String, String> headers = new TreeMap<>();
    props.getHeaders().forEach((k, v) -> headers.put(k, v.getClass().getSimpleName() + ":" + v));
    System.out.println("AMQP wire headers: " + headers);
    // 13 CloudEvents attributes, the user's header, and the quorum queue's own x-delivery-count.
    assertThat(headers).hasSize(15).containsEntry("x-delivery-count", "Long:0");
    Map<String, Object> h = props.getHeaders();
    assertThat(h.get("cloudEvents:specversion")).hasToString("1.0");
    assertThat(h.get("cloudEvents:id")).hasToString("0195a3c4-1111-7abc-8def-0123456789ab");
    assertThat(h.get("cloudEvents:source")).hasToString("/orders-service");
    assertThat(h.get("cloudEvents:type")).hasToString("com.example.OrderPlaced");
    assertThat(h.get("cloudEvents:subject")).hasToString("o-42");
    assertThat(h.get("cloudEvents:time")).hasToString("2025-03-01T10:15:30.123456Z");
    assertThat(h.get("cloudEvents:aggregatetype")).hasToString("Order");
    assertThat(h.get("cloudEvents:sequence")).hasToString("42");
    assertThat(h.get("cloudEvents:partitionkey")).hasToString("o-42");
    assertThat(h.get("cloudEvents:dataversion")).isEqualTo(2L);
    assertThat(h.get("cloudEvents:correlationid")).hasToString("corr-1");
    assertThat(h.get("cloudEvents:causationid")).hasToString("cause-1");
    assertThat(h.get("cloudEvents:traceparent")).hasToString("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(new String(((com.rabbitmq.client.LongString) h.get("tenant")).getBytes(), StandardCharsets.UTF_8))
        .isEqualTo("acme é");
    assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":42,\"note\":\"naïve\"}");

    WireEvents.Read d = AmqpCloudEvents.decode(props, r.getBody(), "q@1");
    assertThat(d.failure()).isNull();
    InboxMessage m = d.message();
    assertThat(m).isEqualTo(new InboxMessage("0195a3c4-1111-7abc-8def-0123456789ab", "com.example.OrderPlaced", 2,
        "/orders-service", "Order", "o-42", 42, "{\"total\":42,\"note\":\"naïve\"}", Map.of("tenant", "acme é"),
        "corr-1", "cause-1", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        Instant.parse("2025-03-01T10:15:30.123456Z"), "q@1"));
  }
}
