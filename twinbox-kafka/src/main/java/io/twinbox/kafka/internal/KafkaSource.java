package io.twinbox.kafka.internal;

import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * time (offset order within it); the offsets of what was settled are committed with the next poll
 * and synchronously on close and on revocation; a partition stopped part-way is rewound so that the
 * rest is fetched again. The records of a newly assigned partition's first hand-out are marked
 * redelivered: whatever was in flight before the assignment may have killed a process, and it may
 * sit anywhere in that batch (FAULTS D6; {@code KafkaProcessKillingRecordTest}).
 *
 * <p><b>Read-ahead.</b> When the last partition of a poll is handed out, the next offset commit and
 * poll start on a thread of the source's own while the consumer's thread runs that partition's
 * database transactions, so the broker's round trips overlap the database's instead of following
 * them. The {@link KafkaConsumer} is never used by two threads at once: every other use ({@link
 * #giveBack}, {@link #close}) first waits for the poll in flight. A commit sent with a poll carries
 * only offsets already settled, that is, after their database commit.
 */
public final class KafkaSource implements MessageSource {
  private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);

  private final Map<String, Object> properties;
  private final List<String> topics;
  private final Duration pollTimeout;
  private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
  private final Deque<List<ConsumerRecord<String, byte[]>>> polled = new ArrayDeque<>();
  /** Settled offsets not yet sent; written by the consumer's thread, sent by the poller's. */
  private final Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
  private final AtomicLong assignments = new AtomicLong();
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile boolean woken;
  private List<ConsumerRecord<String, byte[]>> current = List.of();
  /** The poll in flight on the poller's thread, or null. */
  private CompletableFuture<ConsumerRecords<String, byte[]>> ahead;
  private ExecutorService poller;

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
      take(ahead == null ? commitAndPoll() : awaitAhead());
    }
    current = polled.isEmpty() ? List.of() : polled.poll();
    if (current.isEmpty()) {
      return List.of();
    }
    if (polled.isEmpty() && !woken) {
      ahead = CompletableFuture.supplyAsync(this::commitAndPoll, poller());
    }
    TopicPartition tp = new TopicPartition(current.get(0).topic(), current.get(0).partition());
    boolean fresh = assigned.remove(tp);
    List<ReceivedMessage> out = new ArrayList<>(current.size());
    for (ConsumerRecord<String, byte[]> r : current) {
      // Every record of a newly assigned partition's first hand-out is a suspect, not only the first:
      // the record that killed the previous owner may sit anywhere in the batch it had in flight
      // (behind records of that batch, or behind records it committed whose offsets it had not).
      // The inbox skips those it holds; only the others are run one at a time, counted first.
      out.add(ReceivedMessage.of(CloudEventDecoder.decode(r), fresh));
    }
    return out;
  }

  /** The settled offsets (asynchronously: a lost commit is a redelivery, which the inbox skips), then a poll. */
  private ConsumerRecords<String, byte[]> commitAndPoll() {
    KafkaConsumer<String, byte[]> c = consumer();
    commit(false);
    try {
      return c.poll(pollTimeout);
    } catch (WakeupException e) {
      return ConsumerRecords.empty(); // close() wants the thread back
    }
  }

  private void take(ConsumerRecords<String, byte[]> records) {
    for (TopicPartition tp : records.partitions()) {
      polled.add(records.records(tp));
    }
  }

  /** Waits for the poll in flight; its failure is the fetch's, as if the poll had run here. */
  private ConsumerRecords<String, byte[]> awaitAhead() {
    CompletableFuture<ConsumerRecords<String, byte[]>> f = ahead;
    ahead = null;
    if (f == null) {
      return ConsumerRecords.empty();
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  private ExecutorService poller() {
    if (poller == null) {
      poller = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "twinbox-kafka-poll-" + properties.get("group.id"));
        t.setDaemon(true);
        return t;
      });
    }
    return poller;
  }

  private KafkaConsumer<String, byte[]> consumer() {
    KafkaConsumer<String, byte[]> c = consumer;
    if (c == null) {
      c = new KafkaConsumer<>(properties);
      c.subscribe(topics, new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          assigned.removeAll(partitions);
          flushCommits(); // the next owner starts where the committed offsets say
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
    synchronized (toCommit) {
      toCommit.put(new TopicPartition(last.topic(), last.partition()), new OffsetAndMetadata(last.offset() + 1));
    }
  }

  @Override
  public void giveBack(int done) {
    // Stopped part-way: rewind so the rest is fetched again after a restart or by another member.
    // What the poll in flight read of this partition lies beyond the rewind: dropped, or it would
    // be handed out before the records it follows.
    ConsumerRecord<String, byte[]> next = current.get(done);
    TopicPartition tp = new TopicPartition(next.topic(), next.partition());
    take(awaitAhead());
    polled.removeIf(list -> list.get(0).topic().equals(tp.topic()) && list.get(0).partition() == tp.partition());
    consumer.seek(tp, next.offset());
  }

  /**
   * Sends the settled offsets; only ever after their database commit, so a failure here means a
   * redelivery. {@code sync} waits for this and every earlier commit.
   */
  private void commit(boolean sync) {
    Map<TopicPartition, OffsetAndMetadata> done;
    synchronized (toCommit) {
      if (toCommit.isEmpty() || consumer == null) {
        return;
      }
      done = new HashMap<>(toCommit);
      toCommit.clear();
    }
    if (!sync) {
      consumer.commitAsync(done, (offsets, e) -> {
        if (e != null) {
          log.warn("offset commit failed; the records will be redelivered and skipped as duplicates: {}",
              e.toString());
        }
      });
      return;
    }
    try {
      consumer.commitSync(done);
    } catch (WakeupException e) {
      consumer.commitSync(done); // the wakeup is spent; close() wants the thread back after this
    } catch (KafkaException e) {
      log.warn("offset commit failed; the records will be redelivered and skipped as duplicates: {}",
          e.toString());
    }
  }

  /** Sends what is settled and waits for every commit in flight (an empty {@code commitSync} waits too). */
  private void flushCommits() {
    try {
      commit(true);
      consumer.commitSync(Map.of());
    } catch (KafkaException e) {
      log.warn("offset commits in flight did not complete; their records will be redelivered and skipped as"
          + " duplicates: {}", e.toString());
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
    try {
      try {
        awaitAhead();
      } catch (RuntimeException e) {
        log.debug("the poll in flight failed while closing: {}", e.toString());
      }
      KafkaConsumer<String, byte[]> c = consumer;
      if (c == null) {
        return;
      }
      try {
        commit(true);
      } finally {
        c.close();
      }
    } finally {
      if (poller != null) {
        poller.shutdown();
      }
    }
  }
}
