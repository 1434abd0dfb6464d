package io.twinbox.faults;

import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.KafkaDeliveryReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic after the drain, like the testkit's {@link KafkaDeliveryReader} (whose record
 * parser it uses), but tolerates records that are not Twinbox events: the poison records the
 * nemesis injected are counted, not fatal.
 */
final class Tap {
  record Read(List<Delivery> deliveries, int foreign) {}

  private Tap() {}

  static Read readAll(String bootstrap, String topic, Duration timeout) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "twinbox-faults-tap");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Delivery> out = new ArrayList<>();
    int foreign = 0;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : c.partitionsFor(topic, Duration.ofSeconds(30))) {
        partitions.add(new TopicPartition(topic, p.partition()));
      }
      c.assign(partitions);
      c.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = c.endOffsets(partitions, Duration.ofSeconds(30));
      while (!reached(c, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end " + end + " in " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          try {
            out.add(KafkaDeliveryReader.toDelivery(r));
          } catch (IllegalStateException e) {
            foreign++;
          }
        }
      }
    }
    return new Read(out, foreign);
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
