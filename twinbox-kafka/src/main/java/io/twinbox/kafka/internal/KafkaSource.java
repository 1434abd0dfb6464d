package io.twinbox.kafka.internal;

import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka topics as a {@link MessageSource}: one poll's records are handed out one partition at a
 * time (offset order within it), the offsets of what was settled are committed before the next
 * poll and on close, and a partition stopped part-way is rewound so that the rest is fetched again.
 * The first record of each newly assigned partition is marked redelivered: whatever was in flight
 * before the assignment may have killed a process. The {@link KafkaConsumer} is created on the
 * consumer's thread at the first fetch and used on it only; {@link #wakeup} is the one call from
 * elsewhere.
 */
public final class KafkaSource implements MessageSource {
  private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);

  private final Map<String, Object> properties;
  private final List<String> topics;
  private final Duration pollTimeout;
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final Deque<List<ConsumerRecord<String, byte[]>>> polled = new ArrayDeque<>();
  private final Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
  private final AtomicLong assignments = new AtomicLong();
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile boolean woken;
  private List<ConsumerRecord<String, byte[]>> current = List.of();

  public KafkaSource(Map<String, Object> properties, List<String> topics, Duration pollTimeout) {
    this.properties = Map.copyOf(properties);
    this.topics = List.copyOf(topics);
    this.pollTimeout = pollTimeout;
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public List<ReceivedMessage> fetch() {
    if (woken) {
      return List.of(); // closing: nothing more is fetched
    }
    if (polled.isEmpty()) {
      commit(); // what the previous poll's partitions settled, before the next poll can rebalance
      poll();
    }
    current = polled.isEmpty() ? List.of() : polled.poll();
    if (current.isEmpty()) {
      return List.of();
    }
    TopicPartition tp = new TopicPartition(current.get(0).topic(), current.get(0).partition());
    boolean fresh = assigned.remove(tp);
    List<ReceivedMessage> out = new ArrayList<>(current.size());
    for (ConsumerRecord<String, byte[]> r : current) {
      out.add(ReceivedMessage.of(CloudEventDecoder.decode(r), fresh && out.isEmpty()));
    }
    return out;
  }

  private void poll() {
    KafkaConsumer<String, byte[]> c = consumer();
    ConsumerRecords<String, byte[]> records;
    try {
      records = c.poll(pollTimeout);
    } catch (WakeupException e) {
      return; // close() wants the thread back
    }
    for (TopicPartition tp : records.partitions()) {
      polled.add(records.records(tp));
    }
  }

  private KafkaConsumer<String, byte[]> consumer() {
    KafkaConsumer<String, byte[]> c = consumer;
    if (c == null) {
      c = new KafkaConsumer<>(properties);
      c.subscribe(topics, new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          assigned.removeAll(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          assigned.addAll(partitions);
          assignments.incrementAndGet();
        }
      });
      consumer = c;
      if (woken) {
        c.wakeup();
      }
    }
    return c;
  }

  @Override
  public void settle(int from, int to, IntPredicate parked) {
    ConsumerRecord<String, byte[]> last = current.get(to - 1);
    toCommit.put(new TopicPartition(last.topic(), last.partition()), new OffsetAndMetadata(last.offset() + 1));
  }

  @Override
  public void giveBack(int done) {
    // Stopped part-way: rewind so the rest is fetched again after a restart or by another member.
    ConsumerRecord<String, byte[]> next = current.get(done);
    consumer.seek(new TopicPartition(next.topic(), next.partition()), next.offset());
  }

  /** Commits the settled offsets; only after the database commit, so a failure here means a redelivery. */
  private void commit() {
    if (toCommit.isEmpty() || consumer == null) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>(toCommit);
    toCommit.clear();
    try {
      consumer.commitSync(done);
    } catch (WakeupException e) {
      consumer.commitSync(done); // the wakeup is spent; close() wants the thread back after this
    } catch (KafkaException e) {
      log.warn("offset commit failed; the records will be redelivered and skipped as duplicates: {}",
          e.toString());
    }
  }

  @Override
  public void wakeup() {
    woken = true;
    KafkaConsumer<String, byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  @Override
  public long sessions() {
    return assignments.get();
  }

  /** Commits the offsets of what is done and leaves the group. */
  @Override
  public void close() {
    KafkaConsumer<String, byte[]> c = consumer;
    if (c == null) {
      return;
    }
    try {
      commit();
    } finally {
      c.close();
    }
  }
}
