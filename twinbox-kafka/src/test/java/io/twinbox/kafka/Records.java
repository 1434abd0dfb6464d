package io.twinbox.kafka;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic back with a plain consumer and the CloudEvents SDK's deserializer, as any consumer would. */
final class Records {
  private Records() {}

  /** Polls every partition of {@code topic} from the start until {@code expected} records arrived. */
  static List<ConsumerRecord<String, CloudEvent>> read(String bootstrap, String topic, int expected,
      Duration timeout) {
    Map<String, Object> props = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, CloudEvent>> records = new ArrayList<>();
    try (KafkaConsumer<String, CloudEvent> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new CloudEventDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
          .map(p -> new TopicPartition(topic, p.partition()))
          .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < expected && System.nanoTime() - deadline < 0) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
