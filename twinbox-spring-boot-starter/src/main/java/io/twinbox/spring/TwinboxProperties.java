package io.twinbox.spring;

import io.twinbox.CompletionMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.env.Environment;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code twinbox.*} settings of the Spring Boot auto-configuration. Defaults are those of the
 * core builders ({@code Relay.Builder}, {@code Outbox.Builder}, {@code Inbox.Builder}, {@code
 * KafkaInboxConsumer.Builder}, {@code RabbitInboxConsumer.Builder}, {@code NatsInboxConsumer.Builder}).
 *
 * <p>The values are checked when they are bound, before any Twinbox bean is created: a value out
 * of range stops the application with an error naming the property (e.g. {@code
 * twinbox.relay.batch-size}) and the limit. Secrets are never shown: not the values of the
 * free-form Kafka property maps, nor the RabbitMQ password and URI, nor the user info of the NATS
 * URL (in errors and in {@code toString}).
 *
 * <p>When more than one broker is configured ({@code twinbox.kafka.bootstrap-servers},
 * {@code twinbox.rabbitmq.uri} or {@code .host}, {@code twinbox.nats.url}), {@code
 * twinbox.relay.transport} chooses the relay's; without it the start fails naming the property.
 */
@ConfigurationProperties(prefix = "twinbox")
public class TwinboxProperties implements Validator {
  private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern NATS_NAME = Pattern.compile("[^\\s.*>/\\\\]+");
  private static final Pattern USER_INFO = Pattern.compile("://[^/@]*@");

  /** Whether to auto-configure Twinbox at all. */
  private boolean enabled = true;

  /**
   * Whether to create or upgrade the Twinbox tables at startup (idempotent). Turn it off when
   * Flyway or Liquibase applies {@code db/<dialect>/*.sql} from twinbox-jdbc.
   */
  private boolean migrate = true;

  private final Outbox outbox = new Outbox();
  private final Relay relay = new Relay();
  private final Inbox inbox = new Inbox();
  private final Health health = new Health();
  private final Kafka kafka = new Kafka();
  private final Rabbitmq rabbitmq = new Rabbitmq();
  private final Nats nats = new Nats();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isMigrate() {
    return migrate;
  }

  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  public Outbox getOutbox() {
    return outbox;
  }

  public Relay getRelay() {
    return relay;
  }

  public Inbox getInbox() {
    return inbox;
  }

  public Health getHealth() {
    return health;
  }

  public Kafka getKafka() {
    return kafka;
  }

  public Rabbitmq getRabbitmq() {
    return rabbitmq;
  }

  public Nats getNats() {
    return nats;
  }

  /**
   * The inbox's consumer name: {@code twinbox.inbox.consumer}, else {@code spring.application.name}.
   *
   * @throws IllegalStateException naming both properties when neither is set
   */
  public String inboxConsumer(Environment environment) {
    String name = inbox.getConsumer() != null ? inbox.getConsumer() : environment.getProperty("spring.application.name");
    if (name == null || name.isBlank()) {
      throw new IllegalStateException("twinbox.inbox.consumer is required for the inbox (an InboxHandler bean exists):"
          + " set it, or spring.application.name, to the name the inbox records messages under");
    }
    return name;
  }

  /** Outbox writes. */
  public static class Outbox {
    /** Largest payload accepted, in UTF-8 bytes (900 KiB: room for headers under Kafka's 1 MiB). */
    private int maxPayloadBytes = 921600;   // Outbox.Builder.DEFAULT_MAX_PAYLOAD_BYTES, as a literal for the metadata

    /** Whether to take the W3C trace context from the current OpenTelemetry span. */
    private boolean captureTraceContext = true;

    public int getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }

    public boolean isCaptureTraceContext() {
      return captureTraceContext;
    }

    public void setCaptureTraceContext(boolean captureTraceContext) {
      this.captureTraceContext = captureTraceContext;
    }
  }

  /** The relay running inside the application. */
  public static class Relay {
    /**
     * Whether to run the relay in this application (needs a Transport bean, e.g. the Kafka
     * publisher). Turn it off to run the standalone relay sidecar instead.
     */
    private boolean enabled = true;

    /** CloudEvents source of every published message. */
    private String source = "/twinbox";

    /** Name of this relay in leases and logs; default host-pid-random. */
    private String nodeId;

    /** Rows claimed at once, 1 to 10000. */
    private int batchSize = 500;

    /** Worker threads, 1 to 64. */
    private int workers = 2;

    /** Longest wait between two claims when idle. */
    private Duration pollInterval = Duration.ofMillis(500);

    /** How long a partition lease lasts without renewal, at least 1 s. */
    private Duration leaseTtl = Duration.ofSeconds(10);

    /** Longest wait for the broker's acknowledgements of one wave. */
    private Duration publishTimeout = Duration.ofSeconds(30);

    /** Cap of the pause after a broker outage. */
    private Duration outageBackoffMax = Duration.ofSeconds(10);

    /** What happens to a row once published. */
    private CompletionMode completionMode = CompletionMode.DELETE;

    /**
     * The broker the relay publishes to, when more than one of twinbox.kafka.bootstrap-servers,
     * twinbox.rabbitmq.uri/host and twinbox.nats.url is set (then it is required); the others
     * still feed the inbox consumers.
     */
    private Broker transport;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getSource() {
      return source;
    }

    public void setSource(String source) {
      this.source = source;
    }

    public String getNodeId() {
      return nodeId;
    }

    public void setNodeId(String nodeId) {
      this.nodeId = nodeId;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public int getWorkers() {
      return workers;
    }

    public void setWorkers(int workers) {
      this.workers = workers;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    public Duration getLeaseTtl() {
      return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
    }

    public Duration getPublishTimeout() {
      return publishTimeout;
    }

    public void setPublishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
    }

    public Duration getOutageBackoffMax() {
      return outageBackoffMax;
    }

    public void setOutageBackoffMax(Duration outageBackoffMax) {
      this.outageBackoffMax = outageBackoffMax;
    }

    public CompletionMode getCompletionMode() {
      return completionMode;
    }

    public void setCompletionMode(CompletionMode completionMode) {
      this.completionMode = completionMode;
    }

    public Broker getTransport() {
      return transport;
    }

    public void setTransport(Broker transport) {
      this.transport = transport;
    }
  }

  /** The brokers the starter configures a publisher for: the values of {@code twinbox.relay.transport}. */
  public enum Broker {
    /** The Kafka publisher of {@code twinbox.kafka.*}. */
    KAFKA,
    /** The RabbitMQ publisher of {@code twinbox.rabbitmq.*}. */
    RABBITMQ,
    /** The NATS JetStream publisher of {@code twinbox.nats.*}. */
    NATS
  }

  /** The inbox behind the listeners. */
  public static class Inbox {
    /** Name the inbox records messages under; default spring.application.name. */
    private String consumer;

    /** How long inbox records are kept: the window within which duplicates are recognised. */
    private Duration retention = Duration.ofDays(90);

    /** Longest time after which a message can still arrive again; retention may not be shorter. */
    private Duration redeliveryHorizon = Duration.ofDays(8);

    public String getConsumer() {
      return consumer;
    }

    public void setConsumer(String consumer) {
      this.consumer = consumer;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }

    public Duration getRedeliveryHorizon() {
      return redeliveryHorizon;
    }

    public void setRedeliveryHorizon(Duration redeliveryHorizon) {
      this.redeliveryHorizon = redeliveryHorizon;
    }
  }

  /** The Actuator health indicator. */
  public static class Health {
    /** DOWN once the oldest pending event is older than this. */
    private Duration maxOldestPendingAge = Duration.ofMinutes(1);

    public Duration getMaxOldestPendingAge() {
      return maxOldestPendingAge;
    }

    public void setMaxOldestPendingAge(Duration maxOldestPendingAge) {
      this.maxOldestPendingAge = maxOldestPendingAge;
    }
  }

  /** Kafka, when twinbox-kafka is on the classpath. */
  public static class Kafka {
    /** Bootstrap servers; setting it turns on the Kafka publisher (and the inbox consumer, with an InboxHandler bean). */
    private String bootstrapServers;

    /** Send every event to this topic; default: a topic per aggregate type (Order goes to "order"). */
    private String topic;

    /** More producer properties (security, tuning), e.g. twinbox.kafka.producer.linger.ms=5. */
    private Map<String, String> producer = new LinkedHashMap<>();

    private final Consumer consumer = new Consumer();

    public String getBootstrapServers() {
      return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
    }

    public String getTopic() {
      return topic;
    }

    public void setTopic(String topic) {
      this.topic = topic;
    }

    public Map<String, String> getProducer() {
      return producer;
    }

    public void setProducer(Map<String, String> producer) {
      this.producer = producer;
    }

    public Consumer getConsumer() {
      return consumer;
    }
  }

  /** The Kafka inbox consumer that feeds the InboxHandler bean. */
  public static class Consumer {
    /** Whether to run the Kafka inbox consumer when an InboxHandler bean exists. */
    private boolean enabled = true;

    /** Topics to consume; required when the consumer runs. */
    private List<String> topics = new ArrayList<>();

    /** Consumer group; default the inbox consumer name. */
    private String groupId;

    /** Records per database transaction, 1 to 1000. */
    private int batchSize = 50;

    /** Longest wait of one poll. */
    private Duration pollTimeout = Duration.ofMillis(200);

    /** More consumer properties (security, tuning), e.g. twinbox.kafka.consumer.properties.max.poll.records=100. */
    private Map<String, String> properties = new LinkedHashMap<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getTopics() {
      return topics;
    }

    public void setTopics(List<String> topics) {
      this.topics = topics;
    }

    public String getGroupId() {
      return groupId;
    }

    public void setGroupId(String groupId) {
      this.groupId = groupId;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getPollTimeout() {
      return pollTimeout;
    }

    public void setPollTimeout(Duration pollTimeout) {
      this.pollTimeout = pollTimeout;
    }

    public Map<String, String> getProperties() {
      return properties;
    }

    public void setProperties(Map<String, String> properties) {
      this.properties = properties;
    }
  }

  /** RabbitMQ, when twinbox-rabbitmq is on the classpath. */
  public static class Rabbitmq {
    /**
     * AMQP URI, e.g. amqp://user:password@host:5672/vhost (never shown); setting it, or host, turns
     * on the RabbitMQ publisher (and the inbox consumer, with an InboxHandler bean). Not together
     * with host.
     */
    private String uri;

    /** Broker host; setting it, or uri, turns on the RabbitMQ publisher (and the inbox consumer). */
    private String host;

    /** Broker port, with host. */
    private int port = 5672;

    /** Login user, with host. */
    private String username = "guest";

    /** Login password, with host (never shown); default the client's, guest. */
    private String password;

    /** Virtual host, with host. */
    private String virtualHost = "/";

    /** Send every event to this exchange; default: an exchange per aggregate type (Order goes to "order"). */
    private String exchange;

    private final RabbitConsumer consumer = new RabbitConsumer();

    public String getUri() {
      return uri;
    }

    public void setUri(String uri) {
      this.uri = uri;
    }

    public String getHost() {
      return host;
    }

    public void setHost(String host) {
      this.host = host;
    }

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public String getVirtualHost() {
      return virtualHost;
    }

    public void setVirtualHost(String virtualHost) {
      this.virtualHost = virtualHost;
    }

    public String getExchange() {
      return exchange;
    }

    public void setExchange(String exchange) {
      this.exchange = exchange;
    }

    public RabbitConsumer getConsumer() {
      return consumer;
    }

    /** Whether the publisher is configured: uri or host is set. */
    public boolean isConfigured() {
      return uri != null || host != null;
    }

    /** Without the password, and without the URI's user info. */
    @Override
    public String toString() {
      return "Rabbitmq[uri=" + redactUserInfo(uri) + ", host=" + host + ", port=" + port + ", username=" + username
          + ", password=" + (password == null ? null : "***") + ", virtualHost=" + virtualHost + ", exchange="
          + exchange + "]";
    }
  }

  /** The RabbitMQ inbox consumers that feed the InboxHandler bean, one per queue. */
  public static class RabbitConsumer {
    /** Whether to run the RabbitMQ inbox consumers when an InboxHandler bean exists. */
    private boolean enabled = true;

    /** Queues to consume, one consumer thread each; required when the consumers run. */
    private List<String> queues = new ArrayList<>();

    /** Unacknowledged deliveries the broker may push (basic.qos), 1 to 65535. */
    private int prefetch = 50;

    /** Deliveries per database transaction, 1 to 1000, at most prefetch. */
    private int batchSize = 50;

    /** After the first delivery, how long to wait for more to fill a batch, 0 to 1 s. */
    private Duration batchWait = Duration.ofMillis(20);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getQueues() {
      return queues;
    }

    public void setQueues(List<String> queues) {
      this.queues = queues;
    }

    public int getPrefetch() {
      return prefetch;
    }

    public void setPrefetch(int prefetch) {
      this.prefetch = prefetch;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getBatchWait() {
      return batchWait;
    }

    public void setBatchWait(Duration batchWait) {
      this.batchWait = batchWait;
    }
  }

  /** NATS JetStream, when twinbox-nats is on the classpath. */
  public static class Nats {
    /**
     * Server URL, e.g. nats://localhost:4222, with credentials as user info if any
     * (nats://user:password@host:4222 or nats://token@host:4222; never shown); setting it turns on
     * the NATS publisher (and the inbox consumer, with an InboxHandler bean).
     */
    private String url;

    /** First subject token of the default router: subjects are <prefix>.<aggregate type>.<event type>. */
    private String subjectPrefix = "twinbox";

    private final NatsConsumer consumer = new NatsConsumer();

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getSubjectPrefix() {
      return subjectPrefix;
    }

    public void setSubjectPrefix(String subjectPrefix) {
      this.subjectPrefix = subjectPrefix;
    }

    public NatsConsumer getConsumer() {
      return consumer;
    }

    /** Without the URL's user info (user and password, or token). */
    @Override
    public String toString() {
      return "Nats[url=" + redactUserInfo(url) + ", subjectPrefix=" + subjectPrefix + "]";
    }
  }

  /** The NATS JetStream inbox consumer (a durable pull consumer) that feeds the InboxHandler bean. */
  public static class NatsConsumer {
    /** Whether to run the NATS inbox consumer when an InboxHandler bean exists. */
    private boolean enabled = true;

    /** The JetStream stream to consume; required when the consumer runs. */
    private String stream;

    /** Durable consumer name, created or updated on start; default the inbox consumer name. */
    private String durable;

    /** Only subjects matching this filter, e.g. twinbox.order.>; default the whole stream. */
    private String filterSubject;

    /** Messages per pull and per database transaction, 1 to 1000. */
    private int batchSize = 50;

    /** After the first message, how long to wait for more to fill a batch, 0 to 1 s. */
    private Duration batchWait = Duration.ofMillis(20);

    /** How long the server waits for an ack before redelivering, 1 s to 1 h; over twice the inbox's longest retry (25 s). */
    private Duration ackWait = Duration.ofSeconds(60);

    /** The server's delivery limit, a backstop above the inbox's 5 attempts; -1 for none. */
    private int maxDeliver = 20;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getStream() {
      return stream;
    }

    public void setStream(String stream) {
      this.stream = stream;
    }

    public String getDurable() {
      return durable;
    }

    public void setDurable(String durable) {
      this.durable = durable;
    }

    public String getFilterSubject() {
      return filterSubject;
    }

    public void setFilterSubject(String filterSubject) {
      this.filterSubject = filterSubject;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getBatchWait() {
      return batchWait;
    }

    public void setBatchWait(Duration batchWait) {
      this.batchWait = batchWait;
    }

    public Duration getAckWait() {
      return ackWait;
    }

    public void setAckWait(Duration ackWait) {
      this.ackWait = ackWait;
    }

    public int getMaxDeliver() {
      return maxDeliver;
    }

    public void setMaxDeliver(int maxDeliver) {
      this.maxDeliver = maxDeliver;
    }
  }

  @Override
  public boolean supports(Class<?> type) {
    return TwinboxProperties.class.isAssignableFrom(type);
  }

  /** The limits of the core builders, checked at binding so that errors name the property. */
  @Override
  public void validate(Object target, Errors errors) {
    TwinboxProperties p = (TwinboxProperties) target;
    range(errors, "outbox.maxPayloadBytes", p.outbox.maxPayloadBytes, 1, Integer.MAX_VALUE);
    text(errors, "relay.source", p.relay.source, 255, true);
    text(errors, "relay.nodeId", p.relay.nodeId, 200, false);
    range(errors, "relay.batchSize", p.relay.batchSize, 1, 10_000);
    range(errors, "relay.workers", p.relay.workers, 1, 64);
    atLeast(errors, "relay.pollInterval", p.relay.pollInterval, Duration.ofNanos(1));
    atLeast(errors, "relay.leaseTtl", p.relay.leaseTtl, Duration.ofSeconds(1));
    atLeast(errors, "relay.publishTimeout", p.relay.publishTimeout, Duration.ofNanos(1));
    atLeast(errors, "relay.outageBackoffMax", p.relay.outageBackoffMax, Duration.ofNanos(1));
    if (p.relay.completionMode == null) {
      errors.rejectValue("relay.completionMode", "required", "must be set");
    }
    text(errors, "inbox.consumer", p.inbox.consumer, 255, false);
    atLeast(errors, "inbox.redeliveryHorizon", p.inbox.redeliveryHorizon, Duration.ofNanos(1));
    if (p.inbox.retention == null || p.inbox.redeliveryHorizon != null
        && p.inbox.retention.compareTo(p.inbox.redeliveryHorizon) < 0) {
      errors.rejectValue("inbox.retention", "range", "must be at least twinbox.inbox.redelivery-horizon ("
          + p.inbox.redeliveryHorizon + "): a message redelivered after its record was purged would be processed twice");
    }
    atLeast(errors, "health.maxOldestPendingAge", p.health.maxOldestPendingAge, Duration.ofNanos(1));
    text(errors, "kafka.bootstrapServers", p.kafka.bootstrapServers, 10_000, false);
    if (p.kafka.topic != null && (!KAFKA_TOPIC.matcher(p.kafka.topic).matches()
        || p.kafka.topic.equals(".") || p.kafka.topic.equals(".."))) {
      errors.rejectValue("kafka.topic", "pattern", "must be 1–249 characters of [a-zA-Z0-9._-], not . or ..");
    }
    text(errors, "kafka.consumer.groupId", p.kafka.consumer.groupId, 255, false);
    range(errors, "kafka.consumer.batchSize", p.kafka.consumer.batchSize, 1, 1000);
    atLeast(errors, "kafka.consumer.pollTimeout", p.kafka.consumer.pollTimeout, Duration.ofNanos(1));
    for (String topic : p.kafka.consumer.topics) {
      if (topic == null || !KAFKA_TOPIC.matcher(topic).matches()) {
        errors.rejectValue("kafka.consumer.topics", "pattern", "each topic must be 1–249 characters of [a-zA-Z0-9._-]");
        break;
      }
    }
    validateRabbitmq(p.rabbitmq, errors);
    validateNats(p.nats, errors);
    validateTransport(p, errors);
  }

  // The URI, URL and password are never passed to rejectValue: the binding error would print them.
  private static void validateRabbitmq(Rabbitmq r, Errors errors) {
    if (r.uri != null && r.host != null) {
      errors.rejectValue("rabbitmq.host", "conflict", "set either twinbox.rabbitmq.uri or twinbox.rabbitmq.host, not both");
    }
    if (r.uri != null && r.uri.isBlank()) {
      errors.reject("rabbitmq.uri", "twinbox.rabbitmq.uri must not be blank");
    }
    text(errors, "rabbitmq.host", r.host, 255, false);
    range(errors, "rabbitmq.port", r.port, 1, 65_535);
    text(errors, "rabbitmq.username", r.username, 255, true);
    text(errors, "rabbitmq.virtualHost", r.virtualHost, 255, true);
    text(errors, "rabbitmq.exchange", r.exchange, 255, false);
    RabbitConsumer c = r.consumer;
    range(errors, "rabbitmq.consumer.prefetch", c.prefetch, 1, 65_535);
    range(errors, "rabbitmq.consumer.batchSize", c.batchSize, 1, 1000);
    if (c.batchSize > c.prefetch) {
      errors.rejectValue("rabbitmq.consumer.batchSize", "range", "must not exceed twinbox.rabbitmq.consumer.prefetch ("
          + c.prefetch + "): a batch could never fill");
    }
    within(errors, "rabbitmq.consumer.batchWait", c.batchWait, Duration.ZERO, Duration.ofSeconds(1));
    for (String queue : c.queues) {
      if (queue == null || queue.isBlank() || queue.length() > 255) {
        errors.rejectValue("rabbitmq.consumer.queues", "length", "each queue must be 1–255 non-blank characters");
        break;
      }
    }
  }

  private static void validateNats(Nats n, Errors errors) {
    if (n.url != null && n.url.isBlank()) {
      errors.reject("nats.url", "twinbox.nats.url must not be blank");
    }
    text(errors, "nats.subjectPrefix", n.subjectPrefix, 255, true);
    NatsConsumer c = n.consumer;
    name(errors, "nats.consumer.stream", c.stream);
    name(errors, "nats.consumer.durable", c.durable);
    text(errors, "nats.consumer.filterSubject", c.filterSubject, 255, false);
    range(errors, "nats.consumer.batchSize", c.batchSize, 1, 1000);
    within(errors, "nats.consumer.batchWait", c.batchWait, Duration.ZERO, Duration.ofSeconds(1));
    within(errors, "nats.consumer.ackWait", c.ackWait, Duration.ofSeconds(1), Duration.ofHours(1));
    if (c.maxDeliver == 0 || c.maxDeliver < -1) {
      errors.rejectValue("nats.consumer.maxDeliver", "range", "must be -1 (no limit) or >= 1");
    }
  }

  /** With several brokers configured, the relay's must be chosen; a chosen one must be configured. */
  private static void validateTransport(TwinboxProperties p, Errors errors) {
    List<String> configured = new ArrayList<>();
    if (p.kafka.bootstrapServers != null) {
      configured.add("twinbox.kafka.bootstrap-servers");
    }
    if (p.rabbitmq.isConfigured()) {
      configured.add(p.rabbitmq.uri != null ? "twinbox.rabbitmq.uri" : "twinbox.rabbitmq.host");
    }
    if (p.nats.url != null) {
      configured.add("twinbox.nats.url");
    }
    Broker chosen = p.relay.transport;
    if (chosen == null) {
      if (configured.size() > 1) {
        errors.rejectValue("relay.transport", "required", "must be set to kafka, rabbitmq or nats: "
            + String.join(" and ", configured) + " are set, and the relay publishes to one broker");
      }
      return;
    }
    boolean ready = switch (chosen) {
      case KAFKA -> p.kafka.bootstrapServers != null;
      case RABBITMQ -> p.rabbitmq.isConfigured();
      case NATS -> p.nats.url != null;
    };
    if (!ready) {
      errors.rejectValue("relay.transport", "unconfigured", "is " + chosen.name().toLowerCase(java.util.Locale.ROOT)
          + " but " + switch (chosen) {
            case KAFKA -> "twinbox.kafka.bootstrap-servers is";
            case RABBITMQ -> "neither twinbox.rabbitmq.uri nor twinbox.rabbitmq.host is";
            case NATS -> "twinbox.nats.url is";
          } + " set");
    }
  }

  private static void range(Errors errors, String field, int value, int min, int max) {
    if (value < min || value > max) {
      errors.rejectValue(field, "range", max == Integer.MAX_VALUE ? "must be >= " + min
          : "must be within [" + min + ", " + max + "]");
    }
  }

  private static void atLeast(Errors errors, String field, Duration value, Duration min) {
    if (value == null || value.compareTo(min) < 0) {
      errors.rejectValue(field, "range", min.equals(Duration.ofNanos(1)) ? "must be > 0" : "must be >= " + min);
    }
  }

  private static void within(Errors errors, String field, Duration value, Duration min, Duration max) {
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      errors.rejectValue(field, "range", "must be within [" + min + ", " + max + "]");
    }
  }

  /** A NATS stream or consumer name: no whitespace, dots, wildcards or path separators. */
  private static void name(Errors errors, String field, String value) {
    if (value != null && (value.isEmpty() || value.length() > 255 || !NATS_NAME.matcher(value).matches())) {
      errors.rejectValue(field, "pattern", "must be 1–255 characters without whitespace, '.', '*', '>', '/' or '\\'");
    }
  }

  /** Shows a URI without its user info: {@code amqp://user:secret@host} becomes {@code amqp://***@host}. */
  static String redactUserInfo(String uri) {
    return uri == null ? null : USER_INFO.matcher(uri).replaceFirst("://***@");
  }

  private static void text(Errors errors, String field, String value, int max, boolean required) {
    if (value == null ? required : value.isBlank() || value.length() > max) {
      errors.rejectValue(field, "length", "must be 1–" + max + " non-blank characters");
    }
  }
}
