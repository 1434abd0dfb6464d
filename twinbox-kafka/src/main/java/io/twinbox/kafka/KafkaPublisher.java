package io.twinbox.kafka;

import io.twinbox.kafka.internal.AdminTopicCheck;
import io.twinbox.kafka.internal.AggregateTypeRouter;
import io.twinbox.kafka.internal.FixedTopicRouter;
import io.twinbox.kafka.internal.ProducerHolder;
import io.twinbox.kafka.internal.ProducerSettings;
import io.twinbox.kafka.internal.RecordSender;
import io.twinbox.kafka.internal.TopicCheck;
import io.twinbox.kafka.internal.TopicGate;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 * too-large records, invalid or forbidden topics, topics that do not exist and unserializable
 * events are {@code REJECTED};
 * timeouts, retriable broker errors, authentication failures and a closed publisher are
 * {@code UNAVAILABLE} (they cost no attempt); anything else is {@code RETRY}. After a fatal producer
 * error (fenced, out-of-order sequence, cluster authorization, unsupported version) the producer is
 * closed and the next send creates a fresh one.
 *
 * <p><b>Missing topics.</b> On a cluster that does not create topics on first use
 * ({@code auto.create.topics.enable=false}), an event routed to a topic that does not exist is
 * {@code REJECTED} (FAILED at once, reason naming the topic) — only that event and its aggregate
 * stop, the rest of the relay's batch is published. The first such send waits {@code max.block.ms}
 * (the broker might still create the topic); the cluster's "no such topic" answer is then
 * confirmed with an admin {@code describeTopics} request (the admin client, created only then,
 * uses the producer's connection and security settings and needs {@code DESCRIBE} on the topic),
 * and later events of that topic are rejected at once. The verdict is re-checked by one such
 * request every {@code max.block.ms} (at least 1 s): a topic created meanwhile is used again. While
 * the cluster does not answer at all, a metadata timeout stays {@code UNAVAILABLE}.
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
  private final AdminTopicCheck adminCheck;
  private final RecordSender sender;
  private final DeadLetterTransport deadLetters;

  KafkaPublisher(ProducerSettings settings, TopicRouter router,
      Supplier<? extends Producer<String, byte[]>> producers) {
    this(settings, router, producers, null);
  }

  KafkaPublisher(ProducerSettings settings, TopicRouter router,
      Supplier<? extends Producer<String, byte[]>> producers, TopicCheck topics) {
    this(settings, router, TopicRouter.deadLetters(router), producers, topics);
  }

  /** @param topics how to ask the cluster whether a topic exists; null: an admin client */
  KafkaPublisher(ProducerSettings settings, TopicRouter router, TopicRouter deadLetterRouter,
      Supplier<? extends Producer<String, byte[]>> producers, TopicCheck topics) {
    this.config = new KafkaPublisherConfig(settings.bootstrapServers(), "all", true,
        settings.maxInFlight(), settings.lingerMs(), settings.batchSize(), settings.compressionType(),
        settings.deliveryTimeoutMs(), settings.requestTimeoutMs(), settings.maxBlockMs(),
        describe(router), settings.userPropertyNames());
    this.holder = new ProducerHolder(producers);
    // Bounded by the request timeout: the cluster answered a moment ago when a check is made.
    this.adminCheck = topics != null ? null : new AdminTopicCheck(settings.adminProperties(),
        Math.min(settings.requestTimeoutMs(), Math.max(1_000, settings.maxBlockMs())));
    this.sender = new RecordSender(holder, router, new TopicGate(settings.maxBlockMs(), System::nanoTime),
        topics != null ? topics : adminCheck, System::nanoTime);
    RecordSender letters = new RecordSender(holder, deadLetterRouter,
        new TopicGate(settings.maxBlockMs(), System::nanoTime), topics != null ? topics : adminCheck, System::nanoTime);
    String lettersName = "kafka dead letters (" + describe(deadLetterRouter) + ")";
    this.deadLetters = new DeadLetterTransport() {
      @Override
      public String name() {
        return lettersName;
      }

      @Override
      public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
        return letters.send(letter);
      }

      /** A parked message, routed as its stand-in by the dead-letter router, keyed by its aggregate id. */
      @Override
      public CompletableFuture<PublishOutcome> forward(ParkedLetter letter) {
        return letters.send(letter);
      }
    };
  }

  /** The innermost cause's type and message; Kafka writes "[hidden]" for the values of password settings. */
  private static String refusal(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
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

  /**
   * Dead letters on this publisher's producer, with the same outcomes, as CloudEvents of the
   * original event (same id, attributes, key and payload) plus the extensions {@code ce_dlqreason},
   * {@code ce_dlqattempts}, {@code ce_dlqfirstfailure} and {@code ce_dlqlastfailure}; topic: the
   * builder's {@link Builder#deadLetterRouter dead-letter router}, by default the event's topic
   * followed by {@code .dlq} ({@link TopicRouter#deadLetters}).
   */
  @Override
  public Optional<DeadLetterTransport> deadLetters() {
    return Optional.of(deadLetters);
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
    if (adminCheck != null) {
      adminCheck.close();
    }
  }

  /** The effective settings; contains no secret. */
  public KafkaPublisherConfig config() {
    return config;
  }

  private static String describe(TopicRouter router) {
    return router instanceof AggregateTypeRouter || router instanceof FixedTopicRouter
        || router.toString().startsWith("TopicRouter.")
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
    private TopicRouter deadLetterRouter;

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
     * Chooses each dead letter's topic ({@link KafkaPublisher#deadLetters()}). Default {@link
     * TopicRouter#deadLetters}{@code (topicRouter)}: the event's topic followed by {@code .dlq}.
     */
    public Builder deadLetterRouter(TopicRouter router) {
      this.deadLetterRouter = Objects.requireNonNull(router, "deadLetterRouter cannot be null");
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
      KafkaPublisher publisher;
      try {
        publisher = new KafkaPublisher(settings, router,
            deadLetterRouter != null ? deadLetterRouter : TopicRouter.deadLetters(router),
            () -> new KafkaProducer<>(producerProperties, new StringSerializer(), new ByteArraySerializer()), null);
      } catch (org.apache.kafka.common.KafkaException e) {
        // The client refused the properties while building the producer (an SSL key without its
        // certificate chain, an unresolvable bootstrap address …): a configuration error, said as one.
        throw new IllegalArgumentException("producer properties refused by the Kafka client: " + refusal(e), e);
      }
      LOG.info("Kafka publisher ready: bootstrap.servers={}, router={}, properties set: {}",
          settings.bootstrapServers(), publisher.config.topicRouter(), settings.userPropertyNames());
      return publisher;
    }
  }
}
