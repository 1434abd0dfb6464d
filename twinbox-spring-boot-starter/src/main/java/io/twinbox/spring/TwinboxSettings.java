package io.twinbox.spring;

import io.twinbox.HealthSettings;
import io.twinbox.InboxSettings;
import io.twinbox.OutboxSettings;
import io.twinbox.RelaySettings;
import io.twinbox.RetentionSettings;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.kafka.KafkaPublisherSettings;
import io.twinbox.nats.NatsInboxConsumer;
import io.twinbox.nats.NatsPublisherSettings;
import io.twinbox.rabbitmq.RabbitInboxConsumer;
import io.twinbox.rabbitmq.RabbitPublisherSettings;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import io.twinbox.spring.StarterSettings.Broker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The {@code twinbox.*} properties, bound once at startup through every catalogue on the class
 * path and checked by it: {@code twinbox.<prefix>.<setting in kebab case>} for each setting of
 * {@code RelaySettings}, {@code OutboxSettings}, {@code InboxSettings}, {@code RetentionSettings},
 * {@code HealthSettings},
 * {@link StarterSettings} and, when the broker's module is present, its publisher, consumer and
 * starter catalogues. A value out of range stops the start with every problem, each naming the
 * property and the limit ({@code twinbox.relay.batch-size must be within [1, 10000], was 0}).
 * There is no list of properties here: a setting added to a catalogue is a property at once.
 *
 * <p>Secret values (passwords, the property maps) never appear in errors or {@link #toString()},
 * nor do any text values (a URI may carry a password). Immutable and thread-safe.
 */
public final class TwinboxSettings {
  private static final String PREFIX = "twinbox.";

  private final Map<Catalogue<?>, SettingValues> values;

  private TwinboxSettings(Map<Catalogue<?>, SettingValues> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  /** The property of {@code setting} in {@code catalogue}, e.g. {@code twinbox.relay.retry.max-attempts}. */
  public static String property(Catalogue<?> catalogue, Setting<?> setting) {
    return property(catalogue, setting.name());
  }

  static String property(Catalogue<?> catalogue, String name) {
    String prefix = catalogue.prefix().isEmpty() ? "" : Catalogue.kebab(catalogue.prefix()) + ".";
    return PREFIX + prefix + Catalogue.kebab(name);
  }

  /** The catalogues bound on {@code classLoader}: the broker ones only where the broker's module is. */
  public static List<Catalogue<?>> catalogues(ClassLoader classLoader) {
    List<Catalogue<?>> all = new ArrayList<>(List.of(StarterSettings.TOP, OutboxSettings.CATALOGUE,
        RelaySettings.CATALOGUE, StarterSettings.RELAY, InboxSettings.CATALOGUE, RetentionSettings.CATALOGUE,
        HealthSettings.CATALOGUE));
    if (ClassUtils.isPresent("io.twinbox.kafka.KafkaPublisher", classLoader)) {
      all.addAll(KafkaCatalogues.ALL);
    }
    if (ClassUtils.isPresent("io.twinbox.rabbitmq.RabbitPublisher", classLoader)) {
      all.addAll(RabbitCatalogues.ALL);
    }
    if (ClassUtils.isPresent("io.twinbox.nats.NatsPublisher", classLoader)) {
      all.addAll(NatsCatalogues.ALL);
    }
    return all;
  }

  /**
   * Binds and checks every catalogue's properties.
   *
   * @throws IllegalArgumentException listing every problem, each naming its property
   */
  public static TwinboxSettings bind(Environment environment, ClassLoader classLoader) {
    Binder binder = Binder.get(environment);
    Map<Catalogue<?>, SettingValues> bound = new IdentityHashMap<>();
    List<String> problems = new ArrayList<>();
    for (Catalogue<?> c : catalogues(classLoader)) {
      Map<String, Object> explicit = new LinkedHashMap<>();
      for (Setting<?> s : c.settings()) {
        binder.bind(property(c, s), bindable(s)).ifBound(v -> explicit.put(s.name(), v));
      }
      List<String> found = c.problems(explicit, name -> property(c, name));
      problems.addAll(found);
      if (found.isEmpty()) {
        bound.put(c, c.values(explicit));
      }
    }
    if (problems.isEmpty()) {
      String transport = transportProblem(bound);
      if (transport != null) {
        problems.add(transport);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("Invalid Twinbox settings:\n  " + String.join("\n  ", problems));
    }
    return new TwinboxSettings(bound);
  }

  private static Bindable<?> bindable(Setting<?> s) {
    return switch (s.type()) {
      case LIST -> Bindable.listOf(String.class);
      case MAP -> Bindable.mapOf(String.class, String.class);
      default -> Bindable.of(s.javaType());
    };
  }

  /** The values of {@code catalogue}: given or default. */
  public SettingValues values(Catalogue<?> catalogue) {
    SettingValues v = values.get(catalogue);
    if (v == null) {
      throw new IllegalStateException(catalogue.prefix() + " is not bound: its module is not on the class path");
    }
    return v;
  }

  /** The value of one setting: given or default, null when neither. */
  public <T> T get(Catalogue<?> catalogue, Setting<T> setting) {
    return values(catalogue).get(setting);
  }

  /**
   * The inbox's consumer name: {@code twinbox.inbox.consumer}, else {@code spring.application.name}.
   *
   * @throws IllegalStateException naming both properties when neither is set
   */
  public String inboxConsumer(Environment environment) {
    String name = get(InboxSettings.CATALOGUE, InboxSettings.CONSUMER);
    if (name == null) {
      name = environment.getProperty("spring.application.name");
    }
    if (name == null || name.isBlank()) {
      throw new IllegalStateException(property(InboxSettings.CATALOGUE, InboxSettings.CONSUMER) + " is required for the"
          + " inbox (an InboxHandler bean exists): set it, or spring.application.name, to the name the inbox records"
          + " messages under");
    }
    return name;
  }

  /** The brokers whose connection is configured, by the property that configures each. */
  private static Map<Broker, String> configured(Map<Catalogue<?>, SettingValues> bound) {
    Map<Broker, String> configured = new LinkedHashMap<>();
    bound.forEach((c, v) -> {
      if (c.prefix().equals("kafka") && v.get(KafkaPublisherSettings.BOOTSTRAP_SERVERS) != null) {
        configured.put(Broker.KAFKA, property(c, KafkaPublisherSettings.BOOTSTRAP_SERVERS));
      } else if (c.prefix().equals("rabbitmq") && RabbitPublisherSettings.configured(v)) {
        configured.put(Broker.RABBITMQ, property(c, v.get(RabbitPublisherSettings.URI) != null
            ? RabbitPublisherSettings.URI : RabbitPublisherSettings.HOST));
      } else if (c.prefix().equals("nats") && v.get(NatsPublisherSettings.URL) != null) {
        configured.put(Broker.NATS, property(c, NatsPublisherSettings.URL));
      }
    });
    return configured;
  }

  /** With several brokers configured, the relay's must be chosen; a chosen one must be configured. */
  private static String transportProblem(Map<Catalogue<?>, SettingValues> bound) {
    Map<Broker, String> configured = configured(bound);
    Broker chosen = bound.get(StarterSettings.RELAY).get(StarterSettings.RELAY_TRANSPORT);
    String name = property(StarterSettings.RELAY, StarterSettings.RELAY_TRANSPORT);
    if (chosen == null) {
      return configured.size() <= 1 ? null : name + " must be set to kafka, rabbitmq or nats: "
          + String.join(" and ", configured.values()) + " are set, and the relay publishes to one broker";
    }
    if (configured.containsKey(chosen)) {
      return null;
    }
    return name + " is " + chosen.name().toLowerCase(Locale.ROOT) + " but " + switch (chosen) {
      case KAFKA -> "twinbox.kafka.bootstrap-servers is not set";
      case RABBITMQ -> "neither twinbox.rabbitmq.uri nor twinbox.rabbitmq.host is set";
      case NATS -> "twinbox.nats.url is not set";
    };
  }

  /** The values given, by property; secret and text values masked. */
  @Override
  public String toString() {
    return values.entrySet().stream().flatMap(e -> e.getValue().explicit().entrySet().stream().map(v -> {
      Setting<?> s = e.getKey().setting(v.getKey());
      boolean hidden = s.secret() || s.type() == Setting.Type.STRING;
      return property(e.getKey(), s) + "=" + (hidden ? "***" : s.format(v.getValue()));
    })).collect(Collectors.joining(", ", "TwinboxSettings[", "]"));
  }

  // Each broker's catalogues behind a holder, loaded only when the broker's module is present.
  private static final class KafkaCatalogues {
    static final List<Catalogue<?>> ALL = List.of(KafkaPublisherSettings.CATALOGUE, StarterSettings.Kafka.CATALOGUE,
        KafkaInboxConsumer.Builder.SETTINGS);
  }

  private static final class RabbitCatalogues {
    static final List<Catalogue<?>> ALL = List.of(RabbitPublisherSettings.CATALOGUE, StarterSettings.Rabbit.CATALOGUE,
        RabbitInboxConsumer.Builder.SETTINGS);
  }

  private static final class NatsCatalogues {
    static final List<Catalogue<?>> ALL = List.of(NatsPublisherSettings.CATALOGUE, StarterSettings.Nats.CATALOGUE,
        NatsInboxConsumer.Builder.SETTINGS);
  }
}
