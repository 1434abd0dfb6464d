package io.twinbox.kafka;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The settings of a {@link KafkaPublisher}, declared once: the starter's {@code twinbox.kafka.*},
 * the CLI's {@code kafka.*} and the README derive from {@link #CATALOGUE}, and {@link #builder}
 * turns given values into a publisher builder for both. The producer's own tuning is a free-form
 * map of Kafka properties, checked by {@link KafkaPublisher.Builder#build()}. Immutable.
 */
public final class KafkaPublisherSettings {
  public static final Setting<String> BOOTSTRAP_SERVERS = Setting.string("bootstrapServers").length(10_000)
      .defaultText("(required)").description("Kafka bootstrap servers, host:port[,host:port…].");
  /** Legal exactly when {@link TopicRouter#fixed} accepts it: one rule for every surface. */
  public static final Setting<String> TOPIC = Setting.string("topic")
      .valid(KafkaPublisherSettings::legalTopic, "1–249 characters of [a-zA-Z0-9._-], not . or ..")
      .defaultText("the aggregate type, lower-cased").description("Send every event to this one topic.");
  public static final Setting<String> DEAD_LETTER_TOPIC = Setting.string("deadLetterTopic")
      .valid(KafkaPublisherSettings::legalTopic, "1–249 characters of [a-zA-Z0-9._-], not . or ..")
      .defaultText("the event's topic + .dlq")
      .description("Send every dead letter (relay deadLetters=true) to this one topic.");
  public static final Setting<Map<String, String>> PRODUCER = Setting.stringMap("producer")
      .description("More producer properties (security, tuning), e.g. linger.ms=5.");

  public static final Catalogue<KafkaPublisher.Builder> CATALOGUE =
      Catalogue.<KafkaPublisher.Builder>builder("kafka", "KafkaPublisher.Builder")
          // Applied in this order: the bootstrap servers given on their own win over a map entry.
          .add(PRODUCER, (b, v) -> v.forEach(b::property))
          .add(BOOTSTRAP_SERVERS, (b, v) -> b.property(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, v))
          .add(TOPIC, (b, v) -> b.topicRouter(TopicRouter.fixed(v)))
          .add(DEAD_LETTER_TOPIC, (b, v) -> b.deadLetterRouter(TopicRouter.fixed(v)))
          .build();

  private KafkaPublisherSettings() {}

  /** A publisher builder from checked values ({@link Catalogue#values}); a router may still be set on it. */
  public static KafkaPublisher.Builder builder(SettingValues values) {
    return CATALOGUE.apply(KafkaPublisher.builder(Map.of()), values);
  }

  private static boolean legalTopic(String topic) {
    try {
      TopicRouter.fixed(topic);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
