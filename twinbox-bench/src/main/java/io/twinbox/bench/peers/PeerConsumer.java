package io.twinbox.bench.peers;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Consumes a topic from its end and notes when each {@code ce_id} arrives (same settings as the latency scenario's consumer). */
public final class PeerConsumer implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<UUID, Long> consumed;
  private final Thread thread;
  private volatile boolean running = true;

  public PeerConsumer(String bootstrap, String topic, int partitions, Map<UUID, Long> consumed) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
    this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.consumed = consumed;
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    consumer.assign(tps);
    consumer.seekToEnd(tps);
    tps.forEach(consumer::position);
    this.thread = new Thread(this::loop, "peers-consumer");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  private void loop() {
    while (running) {
      var records = consumer.poll(Duration.ofMillis(50));
      long now = System.nanoTime();
      for (ConsumerRecord<byte[], byte[]> rec : records) {
        Header h = rec.headers().lastHeader("ce_id");
        if (h != null) {
          consumed.putIfAbsent(UUID.fromString(new String(h.value(), StandardCharsets.UTF_8)), now);
        }
      }
    }
    consumer.close();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    if (thread.isAlive()) {
      thread.join(10_000);
    } else {
      consumer.close();
    }
  }
}
