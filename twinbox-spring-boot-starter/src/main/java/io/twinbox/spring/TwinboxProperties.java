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
 * KafkaInboxConsumer.Builder}).
 *
 * <p>The values are checked when they are bound, before any Twinbox bean is created: a value out
 * of range stops the application with an error naming the property (e.g. {@code
 * twinbox.relay.batch-size}) and the limit. Values of the free-form Kafka property maps (which may
 * hold credentials) are never shown.
 */
@ConfigurationProperties(prefix = "twinbox")
public class TwinboxProperties implements Validator {
  private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

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

  private static void text(Errors errors, String field, String value, int max, boolean required) {
    if (value == null ? required : value.isBlank() || value.length() > max) {
      errors.rejectValue(field, "length", "must be 1–" + max + " non-blank characters");
    }
  }
}
