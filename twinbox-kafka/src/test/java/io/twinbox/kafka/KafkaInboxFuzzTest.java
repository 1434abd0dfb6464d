package io.twinbox.kafka;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.WireFuzz;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, acceptance 2 on Kafka: a seeded stream of good and malformed records ({@link WireFuzz})
 * through the real {@link KafkaInboxConsumer} into a real PostgreSQL inbox. Every record ends
 * applied or parked, no handler runs more than {@code maxAttempts} times, the group's lag returns
 * to 0 and the consumer is never evicted (one assignment, no rebalance storm). The seed is printed;
 * {@code -Dtwinbox.fuzz.seed=<seed>} replays a run.
 */
class KafkaInboxFuzzTest {
  private static final int MAX_ATTEMPTS = 3;
  private static final int MESSAGES = 400;

  static PostgresDatabase db;
  static JdbcStore store;
  static KafkaBroker broker;

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    WireFuzz.createLedger(db.dataSource());
    broker = KafkaBroker.shared();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static ProducerRecord<String, byte[]> record(String topic, WireFuzz.Message m) {
    ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, m.key(), m.data());
    m.attributes().forEach((name, value) ->
        r.headers().add(name.equals("datacontenttype") ? "content-type" : "ce_" + name, value));
    m.headers().forEach((name, value) -> r.headers().add(name, value));
    return r;
  }

  @Test
  void everyRecordEndsAppliedOrParkedAndTheGroupKeepsUp() throws Exception {
    long seed = WireFuzz.seedFromProperty();
    System.out.println("KafkaInboxFuzzTest: fuzz seed " + seed);
    WireFuzz fuzz = new WireFuzz(seed, MESSAGES, MAX_ATTEMPTS);
    System.out.println("KafkaInboxFuzzTest: " + fuzz.summary());
    String topic = "fuzz-" + UUID.randomUUID();
    String group = "fuzz-" + topic;
    broker.createTopic(topic, 3);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
        new ByteArraySerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (WireFuzz.Message m : fuzz.messages()) {
        sent.add(producer.send(record(topic, m)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(); // a record the broker refused would leave the fuzz unsettled: say so here
      }
    }

    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), group).build();
    InboxConsumer.Stats stats;
    try (InboxConsumer consumer = KafkaInboxConsumer.builder(broker.bootstrapServers(), group)
        .topics(topic).inbox(inbox, db.dataSource()).handler(fuzz.handler(group)).batchSize(50)
        .retryPolicy(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build())
        .build()) {
      consumer.start();
      await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200))
          .until(() -> fuzz.settled(db.dataSource(), group));
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).until(() -> lag(group, topic) == 0);
      stats = consumer.stats();
      assertThat(consumer.isRunning()).as("still consuming").isTrue();
    }

    fuzz.check(db.dataSource(), group);
    assertThat(stats.processed()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.APPLIED));
    assertThat(stats.parked()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.PARKED));
    assertThat(stats.duplicates()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.DUPLICATE));
    assertThat(stats.sessions()).as("one assignment, never evicted; seed %d", seed).isEqualTo(1);
  }

  /** Records of the group not yet committed, over every partition of the topic. */
  private static long lag(String group, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
          .partitions().stream().map(info -> new TopicPartition(topic, info.partition())).toList();
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
          partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()))).all().get();
      long lag = 0;
      for (TopicPartition tp : partitions) {
        OffsetAndMetadata c = committed.get(tp);
        lag += ends.get(tp).offset() - (c == null ? 0 : c.offset());
      }
      return lag;
    }
  }
}
