package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.testkit.contract.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {

  @Test
  void keepsPortsAndDataAcrossStopKillAndRestartAndLeavesNoProcessBehind() throws Exception {
    KafkaBroker broker = KafkaBroker.start();
    Path dir = broker.logFile().getParent();
    try {
      String bootstrap = broker.bootstrapServers();
      assertThat(bootstrap).matches("127\\.0\\.0\\.1:\\d+");
      assertThat(broker.isRunning()).isTrue();
      broker.createTopic("probe", 2);
      broker.createTopic("probe", 2); // idempotent
      RecordMetadata first = send(bootstrap, "probe", "k1", "one");
      assertThat(readPartition(bootstrap, first)).containsExactly("one");

      long pid = broker.pid();
      broker.stop();
      assertThat(broker.isRunning()).isFalse();
      assertThat(alive(pid)).isFalse();
      broker.restart();
      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      send(bootstrap, "probe", "k1", "two");

      pid = broker.pid();
      broker.kill();
      assertThat(broker.isRunning()).isFalse();
      assertThat(alive(pid)).isFalse();
      broker.restart();
      assertThat(broker.pid()).isNotEqualTo(pid);
      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      RecordMetadata third = send(bootstrap, "probe", "k1", "three");
      assertThat(third.partition()).isEqualTo(first.partition());
      assertThat(third.offset()).isEqualTo(first.offset() + 2);
      // What was written before the stop and before the kill survived both: same data directory.
      assertThat(readPartition(bootstrap, third)).containsExactly("one", "two", "three");
    } finally {
      broker.close();
    }
    assertThat(alive(broker.pid())).isFalse();
    assertThat(broker.isRunning()).isFalse();
    assertThat(Files.exists(dir)).isFalse();
  }

  @Test
  void aClientBootstrappedThroughTheLinkProxyKeepsAllItsTrafficOnIt() throws Exception {
    KafkaBroker broker = KafkaBroker.shared();
    broker.createTopic("linked", 1);
    try (TcpProxy link = TcpProxy.startOn(broker.linkProxyPort(), "127.0.0.1", broker.linkPort())) {
      String through = "127.0.0.1:" + link.port();
      assertThat(link.port()).isEqualTo(broker.linkProxyPort());
      send(through, "linked", "k", "via the proxy");
      assertThat(link.connections()).isPositive();

      // Were the producer's connection after bootstrap a direct one, the blackhole would not
      // touch it and the send would succeed.
      link.blackhole(true);
      Map<String, Object> config = Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, through,
          ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000,
          ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>("linked", "k", "lost")).get())
            .isInstanceOf(java.util.concurrent.ExecutionException.class);
      }
      link.blackhole(false);
      RecordMetadata after = send(through, "linked", "k", "after the blackhole");
      assertThat(readPartition(broker.bootstrapServers(), after))
          .containsExactly("via the proxy", "after the blackhole");
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static RecordMetadata send(String bootstrap, String topic, String key, String value)
      throws Exception {
    Map<String, Object> config = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      return producer.send(new ProducerRecord<>(topic, key, value)).get();
    }
  }

  /** Everything in the record's partition up to and including the record, from offset 0. */
  private static List<String> readPartition(String bootstrap, RecordMetadata upTo) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, "probe-" + UUID.randomUUID(),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config,
        new StringDeserializer(), new StringDeserializer())) {
      TopicPartition partition = new TopicPartition(upTo.topic(), upTo.partition());
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(partition) <= upTo.offset() && System.nanoTime() - deadline < 0) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }
}
