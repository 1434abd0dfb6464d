package io.twinbox.bench;

import io.twinbox.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates a topic and makes sure every partition takes writes before a measurement starts.
 *
 * <p>Why: an idempotent producer that sends several requests to a partition the broker has not
 * finished creating can have its first request fail (NOT_LEADER_OR_FOLLOWER) while a later one is
 * appended; every retry of the first then fails with OUT_OF_ORDER_SEQUENCE_NUMBER until {@code
 * delivery.timeout.ms} (30 s) expires it (KAFKA-15591 / KAFKA-14359). {@code createTopic} waits for
 * partition leaders in the metadata, which can precede the partition's creation on the broker. A
 * topic's birth is not what the relay benchmark measures, so one record (header
 * {@code bench-warmup}) goes to each partition with a non-idempotent, one-request-at-a-time
 * producer first.
 */
public final class Topics {
  /** Records written per partition by {@link #createWarm}. */
  public static final int WARMUP_RECORDS_PER_PARTITION = 1;

  private Topics() {}

  public static void createWarm(KafkaBroker broker, String topic, int partitions) throws Exception {
    broker.createTopic(topic, partitions);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, i, null, new byte[0]);
        rec.headers().add("bench-warmup", "1".getBytes(StandardCharsets.UTF_8));
        acks.add(producer.send(rec));
      }
      for (Future<RecordMetadata> f : acks) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
  }
}
