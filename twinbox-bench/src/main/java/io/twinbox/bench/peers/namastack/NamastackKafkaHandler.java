package io.twinbox.bench.peers.namastack;

import io.namastack.outbox.handler.OutboxRecordMetadata;
import io.namastack.outbox.handler.OutboxTypedHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * namastack's handler for {@link OrderScheduled}: sends the order to its topic, keyed by the record key
 * (the aggregate id), with the event id in a {@code ce_id} header, and waits for the broker's ack —
 * what namastack's own {@code KafkaOutboxHandler} ({@code namastack-outbox-kafka}, not served by this
 * Maven Central) does: {@code kafkaOperations.send(record).get()}, a failure rethrown so that namastack
 * retries the record. The template is Spring Boot's (Kafka client defaults: acks=all, idempotence,
 * linger 5 ms).
 */
public final class NamastackKafkaHandler implements OutboxTypedHandler<OrderScheduled> {
  private final KafkaTemplate<Object, Object> kafka;

  public NamastackKafkaHandler(KafkaTemplate<Object, Object> kafka) {
    this.kafka = kafka;
  }

  @Override
  public void handle(OrderScheduled payload, OutboxRecordMetadata metadata) {
    ProducerRecord<Object, Object> rec = new ProducerRecord<>(payload.topic(), null, metadata.getKey(), payload.order(),
        List.of(new RecordHeader("ce_id", payload.id().getBytes(StandardCharsets.UTF_8))));
    try {
      kafka.send(rec).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to Kafka", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }
}
