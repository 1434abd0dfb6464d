package io.twinbox.kafka;

import io.twinbox.kafka.internal.AggregateTypeRouter;
import io.twinbox.kafka.internal.FixedTopicRouter;
import io.twinbox.kafka.internal.ProducerHolder;
import io.twinbox.kafka.internal.ProducerSettings;
import io.twinbox.kafka.internal.RecordSender;
import io.twinbox.kafka.internal.TopicGate;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox messages to Kafka as CloudEvents 1.0 in binary content mode, with
 * {@code acks=all} and the idempotent producer.
 *
 * <pre>{@code
 * Transport kafka = KafkaPublisher.builder("localhost:9092").build();
 * Transport custom = KafkaPublisher.builder(producerProperties)   // e.g. with SASL settings
 *     .topicRouter(TopicRouter.fixed("orders"))
 *     .build();
 * }</pre>
 *
 * <p><b>Wire format.</b> Each record's key is {@link OutboxMessage#key()} (the aggregate id, or the
 * message id for unordered events) and its value the payload's UTF-8 bytes. The CloudEvents SDK's
 * Kafka binding writes {@code ce_specversion}, {@code ce_id} (message id), {@code ce_source} (the
 * relay's source, default {@code /twinbox}), {@code ce_type}, {@code ce_subject} (aggregate id),
 * {@code ce_time} (occurred-at, UTC), {@code content-type: application/json} and the extensions
 * {@code ce_aggregatetype}, {@code ce_sequence} (decimal text), {@code ce_partitionkey},
 * {@code ce_dataversion} (the contract version), {@code ce_correlationid}, {@code ce_causationid}
 * and {@code ce_traceparent}; absent values are left out. User headers follow under their own names.
 *
 * <p><b>Outcomes.</b> {@link #send} never throws and its future never completes exceptionally:
 * too-large records, invalid or forbidden topics and unserializable events are {@code REJECTED};
 * timeouts, retriable broker errors, authentication failures and a closed publisher are
 * {@code UNAVAILABLE} (they cost no attempt); anything else is {@code RETRY}. After a fatal producer
 * error (fenced, out-of-order sequence, cluster authorization, unsupported version) the producer is
 * closed and the next send creates a fresh one.
 *
 * <p><b>Flush.</b> {@link #flush()} does nothing: {@code KafkaProducer.flush()} blocks until every
 * record of every relay worker is acknowledged, which would defeat the relay's own publish deadline
 * and couple the workers. A wave waits at most {@code linger.ms} (default 0) before it is sent;
 * set {@code linger.ms=0} to trade throughput for that latency.
 *
 * <p>Futures complete on the Kafka producer's I/O thread: dependent stages must not block. This
 * class is thread-safe; one instance serves all relay workers.
 */
public final class KafkaPublisher implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);
  /** How long {@link #close()} waits for records in flight. */
  public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private final KafkaPublisherConfig config;
  private final ProducerHolder holder;
  private final RecordSender sender;

  KafkaPublisher(ProducerSettings settings, TopicRouter router,
      Supplier<? extends Producer<String, byte[]>> producers) {
    this.config = new KafkaPublisherConfig(settings.bootstrapServers(), "all", true,
        settings.maxInFlight(), settings.lingerMs(), settings.batchSize(), settings.compressionType(),
        settings.deliveryTimeoutMs(), settings.requestTimeoutMs(), settings.maxBlockMs(),
        describe(router), settings.userPropertyNames());
    this.holder = new ProducerHolder(producers);
    this.sender = new RecordSender(holder, router, new TopicGate(settings.maxBlockMs(), System::nanoTime),
        System::nanoTime);
  }

  /**
   * Starts a builder from the user's producer properties (bootstrap servers, security settings, any
   * tuning). The map is copied; Twinbox adds its forced settings and defaults to the copy.
   */
  public static Builder builder(Map<String, ?> producerProperties) {
    return new Builder(producerProperties);
  }

  /** Shortcut for {@code builder(Map.of("bootstrap.servers", bootstrapServers))}. */
  public static Builder builder(String bootstrapServers) {
    return new Builder(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        Objects.requireNonNull(bootstrapServers, "bootstrapServers cannot be null")));
  }

  /** Returns {@code kafka}. */
  @Override
  public String name() {
    return "kafka";
  }

  /** Publishes one message; see the class documentation for the outcomes. */
  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    return sender.send(message);
  }

  /** Does nothing, on purpose: see the class documentation. */
  @Override
  public void flush() {
    // Deliberately empty: producer.flush() blocks until every record is acknowledged.
  }

  /**
   * Closes the producer, waiting up to {@link #CLOSE_TIMEOUT} (10 s) for records in flight; those
   * still unsent complete as {@code UNAVAILABLE}, as do later sends. Idempotent.
   */
  @Override
  public void close() {
    holder.close(CLOSE_TIMEOUT);
  }

  /** The effective settings; contains no secret. */
  public KafkaPublisherConfig config() {
    return config;
  }

  private static String describe(TopicRouter router) {
    return router instanceof AggregateTypeRouter || router instanceof FixedTopicRouter
        ? router.toString()
        : router.getClass().getName();
  }

  /**
   * Configures a {@link KafkaPublisher}. Not thread-safe; use it from one thread, then discard it.
   *
   * <p>Producer settings Twinbox forces: {@code acks=all}, {@code enable.idempotence=true},
   * {@code retries=MAX_VALUE}, String keys and byte[] values. Setting {@code acks} to anything but
   * {@code all}/{@code -1}, turning idempotence off, lowering {@code retries}, setting a serializer
   * or {@code transactional.id}, or {@code partitioner.ignore.keys=true} fails {@link #build()}.
   * Defaults: {@code linger.ms=0}, {@code batch.size=65536}, {@code compression.type=none},
   * {@code delivery.timeout.ms=30000} (which must stay ≥ {@code request.timeout.ms + linger.ms}),
   * {@code request.timeout.ms} = min(15000, delivery timeout − linger),
   * {@code max.in.flight.requests.per.connection=5} (1–5 allowed), {@code max.block.ms=5000}.
   */
  public static final class Builder {
    private final Map<String, Object> properties;
    private TopicRouter router = TopicRouter.byAggregateType();

    Builder(Map<String, ?> producerProperties) {
      this.properties = new LinkedHashMap<>(
          Objects.requireNonNull(producerProperties, "producerProperties cannot be null"));
    }

    /** Sets one producer property, e.g. {@code property("linger.ms", 0)}. */
    public Builder property(String name, Object value) {
      properties.put(Objects.requireNonNull(name, "name cannot be null"), value);
      return this;
    }

    /** Chooses each message's topic. Default {@link TopicRouter#byAggregateType()}. */
    public Builder topicRouter(TopicRouter router) {
      this.router = Objects.requireNonNull(router, "topicRouter cannot be null");
      return this;
    }

    /**
     * Validates the settings and creates the producer (it connects lazily, so no broker needs to
     * be up).
     *
     * @throws IllegalArgumentException naming the offending property; values are never shown
     */
    public KafkaPublisher build() {
      ProducerSettings settings = ProducerSettings.of(properties);
      Map<String, Object> producerProperties = settings.producerProperties();
      KafkaPublisher publisher = new KafkaPublisher(settings, router,
          () -> new KafkaProducer<>(producerProperties, new StringSerializer(), new ByteArraySerializer()));
      LOG.info("Kafka publisher ready: bootstrap.servers={}, router={}, properties set: {}",
          settings.bootstrapServers(), publisher.config.topicRouter(), settings.userPropertyNames());
      return publisher;
    }
  }
}
