package io.twinbox.spring;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The settings only the starter has — switches, the relay's broker, what the inbox consumers
 * listen to — declared in catalogues like the components' own, so that they are bound, checked,
 * listed in the IDE metadata and the README the same way. The components' settings are in their
 * own catalogues ({@code RelaySettings}, {@code KafkaPublisherSettings} …). Immutable.
 */
public final class StarterSettings {
  public static final Setting<Boolean> ENABLED = Setting.bool("enabled").defaultValue(true)
      .description("Whether to auto-configure Twinbox at all.");
  public static final Setting<Boolean> MIGRATE = Setting.bool("migrate").defaultValue(true)
      .description("Create or upgrade the Twinbox tables at startup (idempotent); off when Flyway or Liquibase"
          + " applies db/<dialect>/*.sql.");
  public static final Catalogue<Void> TOP = Catalogue.<Void>builder("", "the starter").add(ENABLED).add(MIGRATE)
      .build();

  public static final Setting<Boolean> RELAY_ENABLED = Setting.bool("enabled").defaultValue(true)
      .description("Run the relay in this application (needs a Transport); off to run the standalone relay.");
  public static final Setting<Broker> RELAY_TRANSPORT = Setting.enumValue("transport", Broker.class)
      .defaultText("the one configured broker")
      .description("The broker the relay publishes to; required when more than one is configured.");
  public static final Catalogue<Void> RELAY = Catalogue.<Void>builder("relay", "the starter's relay")
      .add(RELAY_ENABLED).add(RELAY_TRANSPORT).build();

  /** The brokers the starter configures a publisher for: the values of {@code twinbox.relay.transport}. */
  public enum Broker {
    /** The Kafka publisher of {@code twinbox.kafka.*}. */
    KAFKA,
    /** The RabbitMQ publisher of {@code twinbox.rabbitmq.*}. */
    RABBITMQ,
    /** The NATS JetStream publisher of {@code twinbox.nats.*}. */
    NATS
  }

  private StarterSettings() {}

  private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern NATS_NAME = Pattern.compile("[^\\s.*>/\\\\]{1,255}");

  /** The Kafka inbox consumer's binding: what it reads, as whom. */
  public static final class Kafka {
    public static final Setting<Boolean> ENABLED = Setting.bool("enabled").defaultValue(true)
        .description("Run the Kafka inbox consumer when an InboxHandler bean exists.");
    public static final Setting<List<String>> TOPICS = Setting.stringList("topics")
        .valid(ts -> ts.stream().allMatch(t -> KAFKA_TOPIC.matcher(t).matches() && !t.equals(".") && !t.equals("..")),
            "topics of 1–249 characters of [a-zA-Z0-9._-]")
        .defaultText("(required)").description("Topics to consume.");
    public static final Setting<String> GROUP_ID = Setting.string("groupId").length(255)
        .defaultText("the inbox consumer name").description("The consumer group.");
    public static final Setting<Map<String, String>> PROPERTIES = Setting.stringMap("properties")
        .description("More consumer properties (security, tuning), e.g. max.poll.records=100.");
    public static final Catalogue<Void> CATALOGUE = Catalogue.<Void>builder("kafka.consumer", "the starter's Kafka consumer")
        .add(ENABLED).add(TOPICS).add(GROUP_ID).add(PROPERTIES).build();

    private Kafka() {}
  }

  /** The RabbitMQ inbox consumers' binding: one per queue. */
  public static final class Rabbit {
    public static final Setting<Boolean> ENABLED = Setting.bool("enabled").defaultValue(true)
        .description("Run the RabbitMQ inbox consumers when an InboxHandler bean exists.");
    public static final Setting<List<String>> QUEUES = Setting.stringList("queues").length(255)
        .defaultText("(required)").description("Queues to consume, one consumer thread each.");
    public static final Catalogue<Void> CATALOGUE = Catalogue.<Void>builder("rabbitmq.consumer",
        "the starter's RabbitMQ consumers").add(ENABLED).add(QUEUES).build();

    private Rabbit() {}
  }

  /** The NATS inbox consumer's binding: which durable pull consumer on which stream. */
  public static final class Nats {
    public static final Setting<Boolean> ENABLED = Setting.bool("enabled").defaultValue(true)
        .description("Run the NATS inbox consumer when an InboxHandler bean exists.");
    public static final Setting<String> STREAM = Setting.string("stream")
        .valid(s -> NATS_NAME.matcher(s).matches(), "1–255 characters without whitespace, '.', '*', '>', '/' or '\\'")
        .defaultText("(required)").description("The JetStream stream to consume.");
    public static final Setting<String> DURABLE = Setting.string("durable")
        .valid(s -> NATS_NAME.matcher(s).matches(), "1–255 characters without whitespace, '.', '*', '>', '/' or '\\'")
        .defaultText("the inbox consumer name").description("Durable consumer name, created or updated on start.");
    public static final Setting<String> FILTER_SUBJECT = Setting.string("filterSubject").length(255)
        .defaultText("the whole stream").description("Only subjects matching this filter, e.g. twinbox.order.>.");
    public static final Catalogue<Void> CATALOGUE = Catalogue.<Void>builder("nats.consumer",
        "the starter's NATS consumer").add(ENABLED).add(STREAM).add(DURABLE).add(FILTER_SUBJECT).build();

    private Nats() {}
  }
}
