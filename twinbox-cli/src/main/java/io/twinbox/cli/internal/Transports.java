package io.twinbox.cli.internal;

import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.nats.NatsPublisher;
import io.twinbox.nats.SubjectRouter;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.spi.Transport;
import java.util.LinkedHashMap;
import java.util.Map;

/** The relay's transport from the settings: Kafka (default), RabbitMQ or NATS JetStream. */
public final class Transports {
  private Transports() {}

  /**
   * Builds the publisher; none of them connects before its first send.
   *
   * @throws ConfigException naming the missing or invalid setting
   */
  public static Transport build(Settings s) {
    String kind = s.choice("transport", "kafka", "rabbitmq", "nats");
    try {
      return switch (kind) {
        case "kafka" -> kafka(s);
        case "rabbitmq" -> {
          RabbitPublisher.Builder b = RabbitPublisher.builder(s.require("rabbitmq.uri"));
          if (s.get("rabbitmq.exchange") != null) {
            b.router(RabbitRouter.fixed(s.get("rabbitmq.exchange")));
          }
          yield b.build();
        }
        default -> {
          NatsPublisher.Builder b = NatsPublisher.builder(s.require("nats.url"));
          String prefix = s.get("nats.subject.prefix");
          b.subjectRouter(prefix == null ? SubjectRouter.byAggregateType() : SubjectRouter.byAggregateType(prefix));
          yield b.build();
        }
      };
    } catch (IllegalArgumentException e) {
      throw new ConfigException("invalid " + kind + " settings: " + Scrubber.scrub(e.getMessage()));
    }
  }

  private static Transport kafka(Settings s) {
    Map<String, Object> props = new LinkedHashMap<>(s.kafkaProperties());
    props.put("bootstrap.servers", s.require("kafka.bootstrap.servers"));
    KafkaPublisher.Builder b = KafkaPublisher.builder(props);
    if (s.get("kafka.topic") != null) {
      b.topicRouter(TopicRouter.fixed(s.get("kafka.topic")));
    }
    return b.build();
  }
}
