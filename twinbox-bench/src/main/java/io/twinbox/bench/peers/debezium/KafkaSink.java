package io.twinbox.bench.peers.debezium;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The engine's {@code ChangeConsumer}: sends each routed record of a batch to Kafka with one
 * {@code KafkaProducer} ({@code acks=all}, idempotence on), then waits for the acks in order and
 * marks each record processed only after its ack, and the batch finished after the last one — so
 * the offsets the engine flushes (and the LSN it confirms to the slot) never pass an unacknowledged
 * event. What Debezium Server's Kafka sink does too.
 *
 * <p>Record key: the EventRouter's key ({@code aggregateid}) as UTF-8; value: the payload as
 * UTF-8; the event id (the router's {@code id} header) goes out as {@code ce_id}, as Twinbox's
 * publisher does, so that the same consumer times both.
 */
final class KafkaSink implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>>, AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong firstAckNanos = new AtomicLong();
  private final AtomicLong lastAckNanos = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final Map<UUID, Long> ackTimes;
  private volatile Throwable failure;

  /** @param ackTimes where to note each event's ack time ({@code System.nanoTime()}); null: don't */
  KafkaSink(String bootstrapServers, Map<UUID, Long> ackTimes) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "debezium-bench-sink");
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    this.ackTimes = ackTimes;
  }

  @Override
  public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
    List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
    List<UUID> ids = new ArrayList<>(records.size());
    for (RecordChangeEvent<SourceRecord> event : records) {
      SourceRecord r = event.record();
      if (r.value() == null) {
        // Nothing the router emits here (deletes are dropped by the SMT), but be explicit.
        sent.add(null);
        ids.add(null);
        continue;
      }
      ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(r.topic(), bytes(r.key()), bytes(r.value()));
      UUID id = null;
      for (Header h : r.headers()) {
        if (h.key().equals("id")) {
          id = UUID.fromString(String.valueOf(h.value()));
          out.headers().add("ce_id", id.toString().getBytes(StandardCharsets.UTF_8));
        } else if (h.value() != null) {
          out.headers().add(h.key(), String.valueOf(h.value()).getBytes(StandardCharsets.UTF_8));
        }
      }
      ids.add(id);
      sent.add(producer.send(out));
    }
    for (int i = 0; i < records.size(); i++) {
      Future<RecordMetadata> f = sent.get(i);
      if (f != null) {
        try {
          f.get();
        } catch (ExecutionException e) {
          failure = e.getCause();
          // Not marked: the engine stops, its offsets stay before this record.
          throw new IllegalStateException("Kafka refused an outbox event: " + e.getCause(), e.getCause());
        }
        long now = System.nanoTime();
        firstAckNanos.compareAndSet(0, now);
        lastAckNanos.set(now);
        acked.incrementAndGet();
        if (ackTimes != null && ids.get(i) != null) {
          ackTimes.put(ids.get(i), now);
        }
      }
      committer.markProcessed(records.get(i));
    }
    committer.markBatchFinished();
    batches.incrementAndGet();
  }

  private static byte[] bytes(Object o) {
    return o == null ? null : String.valueOf(o).getBytes(StandardCharsets.UTF_8);
  }

  /** Events acknowledged by Kafka so far. */
  long acked() {
    return acked.get();
  }

  long batches() {
    return batches.get();
  }

  /** {@code System.nanoTime()} of the first and the latest ack; 0 before the first. */
  long firstAckNanos() {
    return firstAckNanos.get();
  }

  long lastAckNanos() {
    return lastAckNanos.get();
  }

  Throwable failure() {
    return failure;
  }

  @Override
  public void close() {
    producer.close();
  }
}
