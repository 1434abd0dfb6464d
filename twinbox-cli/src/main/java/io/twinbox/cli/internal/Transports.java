package io.twinbox.cli.internal;

import io.twinbox.kafka.KafkaPublisherSettings;
import io.twinbox.nats.NatsPublisherSettings;
import io.twinbox.rabbitmq.RabbitPublisherSettings;
import io.twinbox.settings.SettingValues;
import io.twinbox.spi.Transport;
import java.util.Locale;

/**
 * The relay's transport from the settings: Kafka (default), RabbitMQ or NATS JetStream, each built
 * from its catalogue's keys ({@code kafka.*}, {@code rabbitmq.*}, {@code nats.*}).
 */
public final class Transports {
  private Transports() {}

  /** The transport setting, lower-cased: {@code kafka}, {@code rabbitmq} or {@code nats}. */
  public static String kind(Settings s) {
    return s.value(SidecarSettings.TOP, SidecarSettings.TOP.<String>setting("transport")).toLowerCase(Locale.ROOT);
  }

  /**
   * Parses and checks the chosen transport's settings that are set, without building anything
   * (the required ones are asked for by {@link #build}).
   *
   * @throws ConfigException naming the invalid setting
   */
  public static SettingValues check(Settings s) {
    return s.values(switch (kind(s)) {
      case "kafka" -> KafkaPublisherSettings.CATALOGUE;
      case "rabbitmq" -> RabbitPublisherSettings.CATALOGUE;
      default -> NatsPublisherSettings.CATALOGUE;
    });
  }

  /** {@link #check}, and the settings without which the transport cannot be built. */
  private static SettingValues require(Settings s) {
    SettingValues v = check(s);
    switch (kind(s)) {
      case "kafka" -> s.require(Settings.key(KafkaPublisherSettings.CATALOGUE, KafkaPublisherSettings.BOOTSTRAP_SERVERS));
      case "rabbitmq" -> {
        if (!RabbitPublisherSettings.configured(v)) {
          throw new ConfigException(Settings.key(RabbitPublisherSettings.CATALOGUE, RabbitPublisherSettings.URI) + " or "
              + Settings.key(RabbitPublisherSettings.CATALOGUE, RabbitPublisherSettings.HOST) + " is required for"
              + " transport=rabbitmq");
        }
      }
      default -> s.require(Settings.key(NatsPublisherSettings.CATALOGUE, NatsPublisherSettings.URL));
    }
    return v;
  }

  /**
   * Builds the publisher; none of them connects before its first send.
   *
   * @throws ConfigException naming the missing or invalid setting
   */
  public static Transport build(Settings s) {
    String kind = kind(s);
    SettingValues values = require(s);
    try {
      return switch (kind) {
        case "kafka" -> KafkaPublisherSettings.builder(values).build();
        case "rabbitmq" -> RabbitPublisherSettings.builder(values).build();
        default -> NatsPublisherSettings.builder(values).build();
      };
    } catch (IllegalArgumentException e) {
      throw new ConfigException("invalid " + kind + " settings: " + Scrubber.scrub(e.getMessage()));
    }
  }
}
