package io.twinbox.kafka;

import io.twinbox.InboxConsumer;
import io.twinbox.InboxConsumerSettings;
import io.twinbox.kafka.internal.KafkaSource;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.spi.MessageSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Builds an {@link InboxConsumer} of Kafka topics: each record's effect commits in the database
 * together with its inbox record, and only then is the offset committed. A crash anywhere causes
 * a redelivery, which the inbox turns into a skipped duplicate.
 *
 * <pre>{@code
 * InboxConsumer consumer = KafkaInboxConsumer.builder("localhost:9092", "payment-service")
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
 * <p>The consumer runs on one thread of its own; see {@link InboxConsumer} for the processing rules.
 */
public final class KafkaInboxConsumer {
  private KafkaInboxConsumer() {}

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

  /** Configures an {@link InboxConsumer} of Kafka topics. Not thread-safe. */
  public static final class Builder extends InboxConsumer.Builder<Builder> {
    public static final Setting<Duration> POLL_TIMEOUT = Setting.duration("pollTimeout").positive()
        .defaultValue(Duration.ofMillis(200)).description("Longest wait of one poll.");
    /** This consumer's settings: the shared ones ({@link InboxConsumerSettings}) and its poll timeout. */
    public static final Catalogue<Builder> SETTINGS = InboxConsumerSettings.<Builder>common("kafka.consumer",
        "KafkaInboxConsumer.Builder", Builder::batchSize, Builder::retryPolicy)
        .add(POLL_TIMEOUT, Builder::pollTimeout).build();

    private final Map<String, Object> properties;
    private final List<String> topics = new ArrayList<>();
    private Duration pollTimeout = POLL_TIMEOUT.defaultValue();

    Builder(Map<String, Object> properties) {
      this.properties = properties;
    }

    public Builder topics(String... names) {
      for (String t : names) {
        topics.add(Objects.requireNonNull(t, "topic cannot be null"));
      }
      return this;
    }

    /** Longest wait of one poll ({@link #POLL_TIMEOUT}). */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = POLL_TIMEOUT.check(pollTimeout);
      return this;
    }

    /** Sets one consumer property (not a forced one). */
    public Builder property(String name, Object value) {
      properties.put(name, value);
      return this;
    }

    @Override
    protected MessageSource source(InboxConsumer.Shared shared) {
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
      long worstRetry = shared.worstRetryMillis();
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
      return new KafkaSource(properties, topics, pollTimeout);
    }
  }
}
