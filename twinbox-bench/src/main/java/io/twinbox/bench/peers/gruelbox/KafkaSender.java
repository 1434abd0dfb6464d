package io.twinbox.bench.peers.gruelbox;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The service whose call gruelbox's outbox records and replays: publishes one event to Kafka and
 * returns only when the broker acknowledged it, so that the outbox deletes its row only after the
 * broker has the event (at-least-once, as gruelbox's README prescribes: the scheduled method must
 * throw if the side effect failed).
 *
 * <p>Not final and with a public method: gruelbox proxies it with ByteBuddy.
 */
public class KafkaSender implements AutoCloseable {
  private final KafkaProducer<String, byte[]> producer;

  /** For the proxy only. */
  protected KafkaSender() {
    this.producer = null;
  }

  /** A producer with the Kafka client's defaults (acks=all, idempotence on). */
  public KafkaSender(String bootstrapServers) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  /** Sends {@code payload} keyed by {@code key}, with the event id in the {@code ce_id} header, and waits for the ack. */
  public void send(String topic, String key, String id, String payload) throws Exception {
    ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, key, payload.getBytes(StandardCharsets.UTF_8));
    r.headers().add("ce_id", id.getBytes(StandardCharsets.UTF_8));
    producer.send(r).get();
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close();
    }
  }
}
