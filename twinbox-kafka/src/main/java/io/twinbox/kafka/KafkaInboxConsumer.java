package io.twinbox.kafka;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.InboxRunner;
import io.twinbox.internal.Reasons;
import io.twinbox.kafka.internal.CloudEventDecoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes Kafka topics through an {@link Inbox}: each record's effect commits in the database
 * together with its inbox record, and only then is the offset committed. A crash anywhere causes
 * a redelivery, which the inbox turns into a skipped duplicate.
 *
 * <pre>{@code
 * KafkaInboxConsumer consumer = KafkaInboxConsumer.builder("localhost:9092", "payment-service")
 *     .topics("order")
 *     .inbox(inbox, dataSource)
 *     .handler((connection, message) -> payments.apply(connection, message))
 *     .build();
 * consumer.start();
 * }</pre>
 *
 * <p>Records of one partition are processed in offset order, so one aggregate's events are applied
 * in order. A failing record is retried with backoff (other partitions of the same poll wait) and
 * parked in {@code twinbox_inbox_parked} after {@code maxAttempts}; records that are not readable
 * CloudEvents with a JSON payload, and handlers throwing {@code UnprocessableMessageException}, are
 * parked at once. The partition then moves on. Forced consumer settings: {@code
 * enable.auto.commit=false}, {@code isolation.level=read_committed}; default {@code
 * auto.offset.reset=earliest}.
 *
 * <p>Runs on one thread of its own. Thread-safe to start, stop and read stats.
 */
public final class KafkaInboxConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaInboxConsumer.class);

  /** Counters since start. */
  public record Stats(long processed, long duplicates, long parked, long retries, long transactions, long rebalances) {}

  private final Map<String, Object> properties;
  private final List<String> topics;
  private final Duration pollTimeout;
  private final InboxRunner runner;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Set<TopicPartition> suspect = new HashSet<>();
  private volatile boolean running;
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile long rebalances;

  private KafkaInboxConsumer(Builder b) {
    this.properties = new HashMap<>(b.properties);
    this.topics = List.copyOf(b.topics);
    this.pollTimeout = b.pollTimeout;
    this.runner = new InboxRunner(b.inbox, b.dataSource, b.handler, b.batchSize, b.retry, () -> running);
    this.thread = new Thread(this::run, "twinbox-kafka-inbox-" + b.inbox.consumer());
    this.thread.setDaemon(true);
  }

  public static Builder builder(String bootstrapServers, String groupId) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    return new Builder(p);
  }

  /** From the user's consumer properties; {@code group.id} and {@code bootstrap.servers} required. */
  public static Builder builder(Map<String, ?> consumerProperties) {
    return new Builder(new HashMap<>(consumerProperties));
  }

  /** Subscribes and starts consuming on a thread of its own. Call once. */
  public void start() {
    if (running || thread.isAlive()) {
      throw new IllegalStateException("consumer already started");
    }
    running = true;
    thread.start();
  }

  private void run() {
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(properties)) {
      consumer = c;
      c.subscribe(topics, new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          suspect.removeAll(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          // Whatever was in flight before this assignment may have killed a process: count the
          // first record of each partition before running it.
          suspect.addAll(partitions);
          rebalances++;
        }
      });
      while (running) {
        ConsumerRecords<String, byte[]> records;
        try {
          records = c.poll(pollTimeout);
        } catch (WakeupException e) {
          break;
        }
        if (!records.isEmpty()) {
          handle(c, records);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (WakeupException e) {
      log.debug("consumer woken up to stop");
    } catch (RuntimeException | Error e) {
      log.error("consumer {} stopped by an unexpected error: {}", thread.getName(), Reasons.of(e), e);
      if (e instanceof Error err) {
        throw err;
      }
    } finally {
      running = false;
      stopped.countDown();
    }
  }

  private void handle(KafkaConsumer<String, byte[]> c, ConsumerRecords<String, byte[]> records)
      throws InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<String, byte[]>> list = records.records(tp);
      List<InboxRunner.Item> items = new ArrayList<>(list.size());
      for (ConsumerRecord<String, byte[]> r : list) {
        CloudEventDecoder.Decoded d = CloudEventDecoder.decode(r);
        items.add(new InboxRunner.Item(d.message(), d.failure()));
      }
      int n = runner.process(items, suspect.remove(tp));
      if (n > 0) {
        done.put(tp, new OffsetAndMetadata(list.get(n - 1).offset() + 1));
      }
      if (n < list.size()) {
        // Stopped part-way: rewind so the rest is fetched again after a restart or by another member.
        c.seek(tp, list.get(n).offset());
      }
    }
    if (!done.isEmpty()) {
      try {
        c.commitSync(done); // only after the database commit: a failure here means a redelivery
      } catch (WakeupException e) {
        c.commitSync(done);
        throw e;
      } catch (KafkaException e) {
        log.warn("offset commit failed; the records will be redelivered and skipped as duplicates: {}",
            Reasons.of(e));
      }
    }
  }

  /** Stops after the current transaction, commits offsets of what is done, leaves the group. */
  @Override
  public void close() {
    running = false;
    KafkaConsumer<String, byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      if (thread.isAlive() && !stopped.await(30, TimeUnit.SECONDS)) {
        log.warn("consumer thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean isRunning() {
    return running;
  }

  public Stats stats() {
    return new Stats(runner.processed.get(), runner.duplicates.get(), runner.parked.get(), runner.retries.get(),
        runner.transactions.get(), rebalances);
  }

  /** Configures a {@link KafkaInboxConsumer}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Object> properties;
    private final List<String> topics = new ArrayList<>();
    private Inbox inbox;
    private DataSource dataSource;
    private InboxHandler handler;
    private int batchSize = 50;
    private RetryPolicy retry = RetryPolicy.builder().maxAttempts(5)
        .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build();
    private Duration pollTimeout = Duration.ofMillis(200);

    Builder(Map<String, Object> properties) {
      this.properties = properties;
    }

    public Builder topics(String... names) {
      for (String t : names) {
        topics.add(Objects.requireNonNull(t, "topic cannot be null"));
      }
      return this;
    }

    /** The inbox and the database its transactions run on. Required. */
    public Builder inbox(Inbox inbox, DataSource dataSource) {
      this.inbox = Objects.requireNonNull(inbox, "inbox cannot be null");
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
      return this;
    }

    /** The business effect. Required. */
    public Builder handler(InboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler cannot be null");
      return this;
    }

    /** Records per database transaction. Default 50; 1–1000. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > 1000) {
        throw new IllegalArgumentException("batchSize must be within [1, 1000], was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /** Attempts and backoff for failing handlers. Default 5 attempts, 200 ms → 5 s, full jitter. */
    public Builder retryPolicy(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retryPolicy cannot be null");
      return this;
    }

    /** Longest wait of one poll. Default 200 ms. */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = Objects.requireNonNull(pollTimeout, "pollTimeout cannot be null");
      return this;
    }

    /** Sets one consumer property (not a forced one). */
    public Builder property(String name, Object value) {
      properties.put(name, value);
      return this;
    }

    public KafkaInboxConsumer build() {
      if (inbox == null || handler == null) {
        throw new IllegalArgumentException("inbox(...) and handler(...) are required");
      }
      if (topics.isEmpty()) {
        throw new IllegalArgumentException("topics(...) needs at least one topic");
      }
      for (String key : List.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG)) {
        if (properties.get(key) == null) {
          throw new IllegalArgumentException(key + " is required");
        }
      }
      Object auto = properties.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
      if (auto != null && Boolean.parseBoolean(auto.toString())) {
        throw new IllegalArgumentException(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG
            + " must be false: offsets are committed only after the database commit");
      }
      long worstRetry = retry.maxDelay().toMillis() * retry.maxAttempts();
      long pollInterval = Long.parseLong(String.valueOf(
          properties.getOrDefault(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000)));
      if (worstRetry * 2 > pollInterval) {
        throw new IllegalArgumentException("retryPolicy may wait " + worstRetry + " ms on one record, more than half of "
            + ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG + " (" + pollInterval + "): the group would evict this consumer");
      }
      properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      properties.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      return new KafkaInboxConsumer(this);
    }
  }
}
