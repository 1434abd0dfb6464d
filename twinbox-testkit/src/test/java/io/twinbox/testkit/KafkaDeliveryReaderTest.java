package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reader against a real broker, fed with records in the Twinbox wire format. */
class KafkaDeliveryReaderTest {
  private static KafkaBroker broker;

  @BeforeAll
  static void broker() {
    broker = KafkaBroker.shared();
  }

  @Test
  void readsEveryCommittedRecordWithItsHeadersAndSkipsAbortedTransactions() throws Exception {
    String topic = "reader-all";
    broker.createTopic(topic, 3);
    List<ExpectedEvent> committed = new ArrayList<>();
    for (int a = 0; a < 3; a++) {
      for (long s = 1; s <= 4; s++) {
        committed.add(ExpectedEvent.ordered(UUID.randomUUID(), "Order", "order-" + a, s));
      }
    }
    committed.add(ExpectedEvent.unordered(UUID.randomUUID(), "Audit"));
    UUID aborted = UUID.randomUUID();
    try (KafkaProducer<byte[], byte[]> producer = producer("reader-tx")) {
      producer.initTransactions();
      producer.beginTransaction();
      for (ExpectedEvent event : committed) {
        producer.send(record(topic, event));
      }
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(record(topic, ExpectedEvent.ordered(aborted, "Order", "order-0", 5)));
      producer.flush();
      producer.abortTransaction();
    }

    List<Delivery> deliveries = KafkaDeliveryReader.readAll(broker.bootstrapServers(),
        List.of(topic), Duration.ofSeconds(30));

    assertThat(deliveries).hasSize(committed.size());
    Delivery first = deliveries.stream().filter(d -> d.id().equals(committed.get(0).id()))
        .findFirst().orElseThrow();
    assertThat(first.topic()).isEqualTo(topic);
    assertThat(first.key()).isEqualTo("order-0");
    assertThat(first.aggregateType()).isEqualTo("Order");
    assertThat(first.aggregateId()).isEqualTo("order-0");
    assertThat(first.sequence()).isEqualTo(1);
    Delivery audit = deliveries.stream().filter(d -> d.aggregateType().equals("Audit"))
        .findFirst().orElseThrow();
    assertThat(audit.aggregateId()).isNull();
    assertThat(audit.key()).isEqualTo(audit.id().toString());
    assertThat(audit.sequence()).isZero();
    CheckResult result = DeliveryChecker.check(committed, Set.of(aborted), deliveries);
    assertThat(result.ok()).as(result.describe(5)).isTrue();
    assertThat(result.summary()).startsWith("committed=13 delivered=13 lost=0 phantom=0");
  }

  @Test
  void awaitsIdsOnATopicThatDoesNotExistYet() throws Exception {
    String topic = "reader-late-" + UUID.randomUUID();
    List<ExpectedEvent> events = new ArrayList<>();
    for (long s = 1; s <= 5; s++) {
      events.add(ExpectedEvent.ordered(UUID.randomUUID(), "Cart", "cart-1", s));
    }
    Set<UUID> ids = new HashSet<>();
    events.forEach(e -> ids.add(e.id()));
    CompletableFuture<List<Delivery>> reading = CompletableFuture.supplyAsync(() ->
        KafkaDeliveryReader.awaitIds(broker.bootstrapServers(), List.of(topic), ids,
            Duration.ofSeconds(30)));
    Thread.sleep(1000);
    try (KafkaProducer<byte[], byte[]> producer = producer(null)) {
      for (ExpectedEvent event : events) {
        producer.send(record(topic, event)).get(); // auto-creates the topic
      }
    }
    List<Delivery> deliveries = reading.get(40, TimeUnit.SECONDS);
    assertThat(deliveries).extracting(Delivery::sequence).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(DeliveryChecker.check(events, Set.of(), deliveries).ok()).isTrue();
  }

  @Test
  void awaitReturnsWhatItHasWhenAnIdNeverArrives() throws Exception {
    String topic = "reader-missing";
    ExpectedEvent sent = ExpectedEvent.unordered(UUID.randomUUID(), "Audit");
    ExpectedEvent neverSent = ExpectedEvent.unordered(UUID.randomUUID(), "Audit");
    try (KafkaProducer<byte[], byte[]> producer = producer(null)) {
      producer.send(record(topic, sent)).get();
    }
    long started = System.nanoTime();
    List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(broker.bootstrapServers(),
        List.of(topic), Set.of(sent.id(), neverSent.id()), Duration.ofSeconds(2));
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(
        Duration.ofSeconds(2));
    CheckResult result = DeliveryChecker.check(List.of(sent, neverSent), Set.of(), deliveries);
    assertThat(result.lostIds()).containsExactly(neverSent.id());
    assertThat(result.delivered()).isEqualTo(1);
  }

  @Test
  void aRecordWithoutAMessageIdIsAnError() throws Exception {
    String topic = "reader-malformed";
    try (KafkaProducer<byte[], byte[]> producer = producer(null)) {
      producer.send(new ProducerRecord<>(topic, "k".getBytes(StandardCharsets.UTF_8),
          "{}".getBytes(StandardCharsets.UTF_8))).get();
    }
    assertThatThrownBy(() -> KafkaDeliveryReader.readAll(broker.bootstrapServers(),
        List.of(topic), Duration.ofSeconds(30)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reader-malformed-")
        .hasMessageContaining("ce_id missing");
  }

  /** A record as Twinbox's Kafka transport writes it: CloudEvents binary mode. */
  private static ProducerRecord<byte[], byte[]> record(String topic, ExpectedEvent event) {
    String key = event.ordered() ? event.aggregateId() : event.id().toString();
    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, utf8(key),
        utf8("{\"n\":" + event.sequence() + "}"));
    Map<String, String> headers = new HashMap<>();
    headers.put("ce_specversion", "1.0");
    headers.put("ce_id", event.id().toString());
    headers.put("ce_type", event.aggregateType() + "Changed");
    headers.put("ce_source", "/twinbox-testkit");
    headers.put("ce_aggregatetype", event.aggregateType());
    headers.put("ce_sequence", Long.toString(event.sequence()));
    headers.put("ce_partitionkey", key);
    if (event.ordered()) {
      headers.put("ce_subject", event.aggregateId());
    }
    headers.forEach((name, value) -> record.headers().add(name, utf8(value)));
    return record;
  }

  private static KafkaProducer<byte[], byte[]> producer(String transactionalId) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    if (transactionalId != null) {
      config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
