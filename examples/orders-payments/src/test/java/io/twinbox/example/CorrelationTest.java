package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.PostgresDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * R20: correlation and causation ids flow through the example, checked on the wire. Every
 * {@code OrderCreated} carries correlation id = its order id; every {@code PaymentCaptured} /
 * {@code PaymentDeclined} answering it carries the same correlation id and, as causation id, the
 * message id of the {@code OrderCreated} it answers.
 */
class CorrelationTest {
  private static final int ORDERS = 200;
  private static PostgresDatabase ordersDb;
  private static PostgresDatabase paymentsDb;

  @BeforeAll
  static void databases() {
    ordersDb = PostgresDatabase.create();
    paymentsDb = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    ordersDb.close();
    paymentsDb.close();
  }

  @Test
  void everyAnswerCarriesTheOrdersCorrelationIdAndTheOrderCreatedIdAsCausation() throws Exception {
    Environment env = TestServers.environment(ordersDb, paymentsDb, "correlation");
    TestServers.Output out = new TestServers.Output();

    DemoRun.Result result = DemoRun.run(env, TestServers.settings(ORDERS, 20, Chaos.Settings.off()), out.writer);
    assertThat(result.checks()).as(out.text()).allMatch(Check::ok);

    // Without chaos each order has one OrderCreated (a relay may republish it after an ambiguous
    // broker answer, but always under the same message id) and one answer to it.
    Map<String, Map<String, String>> created = new HashMap<>(); // order id -> ce_* headers
    for (Map<String, String> h : readAll(env.topics(), env.topics().orders())) {
      assertThat(h.get("ce_type")).isEqualTo(Events.ORDER_CREATED);
      Map<String, String> before = created.putIfAbsent(h.get("ce_subject"), h);
      if (before != null) {
        assertThat(h.get("ce_id")).as("a second OrderCreated record is a republish").isEqualTo(before.get("ce_id"));
      }
    }
    assertThat(created).hasSize(ORDERS);
    Map<String, String> answered = new HashMap<>(); // answer message id -> order id
    for (Map<String, String> answer : readAll(env.topics(), env.topics().payments())) {
      String orderId = answer.get("ce_subject");
      Map<String, String> cause = created.get(orderId);
      assertThat(cause).as("the OrderCreated of order %s", orderId).isNotNull();
      assertThat(answer.get("ce_type")).isIn(Events.PAYMENT_CAPTURED, Events.PAYMENT_DECLINED);
      assertThat(cause.get("ce_correlationid")).as("OrderCreated correlation id = order id").isEqualTo(orderId);
      assertThat(answer.get("ce_correlationid")).as("answer correlation id = the order's").isEqualTo(orderId);
      assertThat(answer.get("ce_causationid")).as("answer causation id = the OrderCreated message id")
          .isEqualTo(cause.get("ce_id"));
      answered.put(answer.get("ce_id"), orderId);
    }
    assertThat(answered).as("one answer per order").hasSize(ORDERS);
    assertThat(answered.values()).doesNotHaveDuplicates();
  }

  /** Every record of {@code topic}, from the beginning to the end offsets: its headers as text. */
  private static List<Map<String, String>> readAll(Topics topics, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<Map<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          Map<String, String> headers = new HashMap<>();
          for (Header h : r.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
          }
          records.add(headers);
        }
      }
    }
    return records;
  }
}
