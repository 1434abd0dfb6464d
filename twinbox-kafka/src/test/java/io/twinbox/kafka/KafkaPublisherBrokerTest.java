package io.twinbox.kafka;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import io.twinbox.testkit.KafkaBroker;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Publishing to a real broker (the testkit's shared one): wire format, rejections, routing. */
class KafkaPublisherBrokerTest {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
  private static KafkaBroker broker;
  private static KafkaPublisher publisher;

  @BeforeAll
  static void start() {
    broker = KafkaBroker.shared();
    publisher = KafkaPublisher.builder(broker.bootstrapServers()).build();
  }

  @AfterAll
  static void stop() {
    publisher.close();
  }

  private static String uniqueTopic(String prefix) {
    String topic = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    broker.createTopic(topic, 4);
    return topic;
  }

  private static PublishOutcome publish(KafkaPublisher p, OutboxMessage m) throws Exception {
    CompletableFuture<PublishOutcome> f = p.send(m);
    return f.get(30, SECONDS);
  }

  @Test
  void aPublishedMessageIsAFullCloudEventForAPlainConsumer() throws Exception {
    String topic = uniqueTopic("wire");
    OutboxMessage full = Messages.full("Order", "order-17", 42);
    OutboxMessage minimal = Messages.minimal("Ping");
    try (KafkaPublisher p = KafkaPublisher.builder(broker.bootstrapServers())
        .topicRouter(TopicRouter.fixed(topic)).build()) {
      assertThat(publish(p, full)).isEqualTo(PublishOutcome.acked());
      assertThat(publish(p, minimal)).isEqualTo(PublishOutcome.acked());
    }

    List<ConsumerRecord<String, CloudEvent>> records =
        Records.read(broker.bootstrapServers(), topic, 2, READ_TIMEOUT);
    assertThat(records).hasSize(2);
    ConsumerRecord<String, CloudEvent> record =
        records.stream().filter(r -> r.key().equals("order-17")).findFirst().orElseThrow();
    CloudEvent e = record.value();
    assertThat(e.getId()).isEqualTo(full.id().toString());
    assertThat(e.getSource()).isEqualTo(URI.create("/orders-service"));
    assertThat(e.getType()).isEqualTo("com.example.OrderCreated");
    assertThat(e.getSubject()).isEqualTo("order-17");
    assertThat(e.getTime()).isEqualTo(OffsetDateTime.ofInstant(Messages.OCCURRED_AT, ZoneOffset.UTC));
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo(full.payload());
    assertThat(e.getExtension("aggregatetype")).isEqualTo("Order");
    assertThat(e.getExtension("sequence")).isEqualTo("42");
    assertThat(e.getExtension("partitionkey")).isEqualTo("order-17");
    assertThat(e.getExtension("dataversion")).isEqualTo("2");
    assertThat(e.getExtension("correlationid")).isEqualTo("corr-1");
    assertThat(e.getExtension("causationid")).isEqualTo("cause-1");
    assertThat(e.getExtension("traceparent")).isEqualTo(Messages.TRACEPARENT);
    assertThat(header(record, "tenant")).isEqualTo("acme");
    assertThat(header(record, "x-region")).isEqualTo("eu-west");
    assertThat(header(record, "ce_id")).isEqualTo(full.id().toString());
    assertThat(header(record, "ce_subject")).isEqualTo("order-17");
    assertThat(header(record, "ce_aggregatetype")).isEqualTo("Order");
    assertThat(header(record, "ce_sequence")).isEqualTo("42");

    ConsumerRecord<String, CloudEvent> unordered =
        records.stream().filter(r -> r.key().equals(minimal.id().toString())).findFirst().orElseThrow();
    assertThat(unordered.value().getSubject()).isNull();
    assertThat(unordered.value().getSource()).isEqualTo(URI.create("/twinbox"));
    assertThat(unordered.value().getExtension("correlationid")).isNull();
    assertThat(unordered.headers().lastHeader("ce_subject")).isNull();
  }

  @Test
  void oneAggregatesMessagesShareAPartitionInSequenceOrder() throws Exception {
    String topic = uniqueTopic("order");
    List<CompletableFuture<PublishOutcome>> sends = new ArrayList<>();
    try (KafkaPublisher p = KafkaPublisher.builder(broker.bootstrapServers())
        .topicRouter(TopicRouter.fixed(topic)).build()) {
      for (int seq = 1; seq <= 20; seq++) {
        for (String aggregate : List.of("a-1", "a-2", "a-3")) {
          sends.add(p.send(Messages.full("Order", aggregate, seq)));
        }
      }
      for (CompletableFuture<PublishOutcome> f : sends) {
        assertThat(f.get(30, SECONDS)).isEqualTo(PublishOutcome.acked());
      }
    }
    List<ConsumerRecord<String, CloudEvent>> records =
        Records.read(broker.bootstrapServers(), topic, 60, READ_TIMEOUT);
    assertThat(records).hasSize(60);
    for (String aggregate : List.of("a-1", "a-2", "a-3")) {
      List<ConsumerRecord<String, CloudEvent>> mine =
          records.stream().filter(r -> r.key().equals(aggregate)).toList();
      assertThat(mine).extracting(ConsumerRecord::partition).containsOnly(mine.get(0).partition());
      assertThat(mine).extracting(r -> Long.parseLong((String) r.value().getExtension("sequence")))
          .isSorted().hasSize(20);
    }
  }

  @Test
  void aRecordOverTheProducersSizeLimitIsRejectedAtOnce() throws Exception {
    String topic = uniqueTopic("too-large");
    try (KafkaPublisher p = KafkaPublisher.builder(broker.bootstrapServers())
        .topicRouter(TopicRouter.fixed(topic)).build()) {
      long start = System.nanoTime();
      PublishOutcome o = publish(p, Messages.withPayloadSize("Order", 2 * 1024 * 1024));

      assertThat(o.kind()).isEqualTo(Kind.REJECTED);
      assertThat(o.reason()).startsWith("RecordTooLargeException").contains("max.request.size")
          .hasSizeLessThanOrEqualTo(500).doesNotContain("xxxxxxxx");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(publish(p, Messages.full("Order", "o-1", 1))).isEqualTo(PublishOutcome.acked());
    }
  }

  @Test
  void aRecordOverTheBrokersSizeLimitIsRejected() throws Exception {
    String topic = uniqueTopic("too-large-broker");
    // The producer would take 4 MiB; the broker's message.max.bytes stays at its ~1 MiB default.
    try (KafkaPublisher p = KafkaPublisher.builder(broker.bootstrapServers())
        .property("max.request.size", 4 * 1024 * 1024)
        .topicRouter(TopicRouter.fixed(topic)).build()) {
      long start = System.nanoTime();
      PublishOutcome o = publish(p, Messages.withPayloadSize("Order", 1536 * 1024));

      assertThat(o.kind()).isEqualTo(Kind.REJECTED);
      assertThat(o.reason()).startsWith("RecordTooLargeException").doesNotContain("xxxxxxxx");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      assertThat(publish(p, Messages.full("Order", "o-1", 1))).isEqualTo(PublishOutcome.acked());
    }
  }

  @Test
  void theDefaultRouterPublishesToTheAggregateTypesTopic() throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "shipment-note-" + suffix;
    broker.createTopic(topic, 2);
    OutboxMessage m = Messages.full("Shipment Note:" + suffix.toUpperCase(), "s-1", 1);

    assertThat(publisher.config().topicRouter()).isEqualTo("TopicRouter.byAggregateType()");
    assertThat(publish(publisher, m)).isEqualTo(PublishOutcome.acked());
    assertThat(Records.read(broker.bootstrapServers(), topic, 1, READ_TIMEOUT))
        .singleElement().satisfies(r -> assertThat(r.key()).isEqualTo("s-1"));
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
