package io.twinbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Health;
import io.twinbox.HealthSettings;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxSettings;
import io.twinbox.Outbox;
import io.twinbox.OutboxSettings;
import io.twinbox.RelaySettings;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import io.twinbox.spi.Transport;
import io.twinbox.spring.autoconfigure.TwinboxAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxHealthAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxKafkaAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxMetricsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxNatsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRabbitAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRelayAutoConfiguration;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.contract.SettingSamples;
import io.twinbox.testkit.SettingsDocs;
import io.twinbox.testkit.SettingsDocs.Column;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.mock.env.MockEnvironment;

/**
 * Acceptance 4 of issue 16, the starter's side: the {@code twinbox.*} properties, the IDE
 * metadata and the README's tables of the library and the starter are the catalogues'. A default,
 * a limit, a type or a name changed in one place and not the other fails here: the property
 * names, defaults and limits are checked by binding every setting (its default, a valid value,
 * an invalid one), the beans' effective settings against the catalogue defaults, the
 * auto-configuration conditions' property names and defaults against the catalogues, and the
 * generated files by regenerating them ({@code -Dtwinbox.readme.write=true} rewrites them).
 */
class SettingsAgreementTest {
  private static final List<Catalogue<?>> ALL = TwinboxSettings.catalogues(SettingsAgreementTest.class.getClassLoader());
  private static final Path METADATA = Path.of("src/main/resources/META-INF/spring-configuration-metadata.json");

  @Test
  void everyPropertyBindsWithItsCataloguesDefaultTypeAndLimits() {
    int checked = 0;
    for (Catalogue<?> c : ALL) {
      SettingValues defaults = TwinboxSettings.bind(new MockEnvironment(), loader()).values(c);
      for (Setting<?> s : c.settings()) {
        String property = TwinboxSettings.property(c, s);
        assertThat(defaults.get(s)).as(property + " default").isEqualTo(s.defaultValue());
        Object sample = SettingSamples.valid(s);
        if (sample != null && s.type() != Setting.Type.MAP) {
          MockEnvironment env = environment(c, s, property, s.format(sample));
          assertThat(TwinboxSettings.bind(env, loader()).values(c).get(s)).as(property + " bound").isEqualTo(sample);
        }
        Object bad = SettingSamples.invalid(s);
        if (bad != null) {
          String expected = refusal(s, bad, property);
          assertThatThrownBy(() -> TwinboxSettings.bind(environment(c, s, property, s.format(bad)), loader()))
              .as(property + " refused").hasMessageContaining(expected);
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(60);
  }

  @Test
  void theBeansGetTheCataloguesDefaults() {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class,
              TwinboxRelayAutoConfiguration.class, TwinboxHealthAutoConfiguration.class))
          .withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource()))
          .withBean(Transport.class, RecordingTransport::acking)
          .withBean(InboxHandler.class, () -> (connection, message) -> { })
          .withPropertyValues("spring.application.name=agreement")
          .run(context -> {
            assertThat(context).hasNotFailed();
            int compared = compare(RelaySettings.CATALOGUE, context.getBean(TwinboxRelay.class).relay().config())
                + compare(OutboxSettings.CATALOGUE, context.getBean(Outbox.class).config())
                + compare(InboxSettings.CATALOGUE, context.getBean(Inbox.class).config());
            assertThat(compared).isGreaterThan(15);
            assertThat(context.getBean(Health.class).maxOldestPendingAge())
                .isEqualTo(HealthSettings.MAX_OLDEST_PENDING_AGE.defaultValue());
          });
    }
  }

  @Test
  void theConditionsUseCataloguePropertiesAndDefaults() {
    Map<String, Setting<?>> byProperty = ALL.stream().flatMap(c -> c.settings().stream()
        .map(s -> Map.entry(TwinboxSettings.property(c, s), s)))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    List<String> seen = new ArrayList<>();
    for (Class<?> config : List.of(TwinboxAutoConfiguration.class, TwinboxRelayAutoConfiguration.class,
        TwinboxKafkaAutoConfiguration.class, TwinboxRabbitAutoConfiguration.class, TwinboxNatsAutoConfiguration.class,
        TwinboxMetricsAutoConfiguration.class, TwinboxHealthAutoConfiguration.class,
        io.twinbox.spring.autoconfigure.TwinboxRetentionAutoConfiguration.class)) {
      for (AnnotatedElement e : Stream.concat(Stream.of(config), Stream.of(config.getDeclaredMethods())).toList()) {
        for (Annotation a : e.getAnnotations()) {
          if (a instanceof ConditionalOnBooleanProperty p) {
            Setting<?> s = byProperty.get(p.name()[0]);
            assertThat(s).as(p.name()[0] + " on " + e).isNotNull();
            assertThat(p.matchIfMissing()).as(p.name()[0] + " default").isEqualTo(s.defaultValue());
            seen.add(p.name()[0]);
          } else if (a instanceof ConditionalOnProperty p) {
            assertThat(byProperty).as(p.name()[0] + " on " + e).containsKey(p.name()[0]);
            seen.add(p.name()[0]);
          }
        }
      }
    }
    assertThat(seen).contains("twinbox.enabled", "twinbox.relay.enabled", "twinbox.kafka.bootstrap-servers",
        "twinbox.nats.url", "twinbox.kafka.consumer.enabled", "twinbox.retention.enabled");
  }

  @Test
  void theIdeMetadataIsTheCatalogues() throws Exception {
    String json = metadata(ALL);
    SettingsDocs.assertFile(METADATA, json);
    try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the metadata is packaged").isNotNull();
      if (!Boolean.getBoolean(SettingsDocs.WRITE)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(json);
      }
    }
  }

  @Test
  void theReadmeTablesAreTheCatalogues() {
    List<Catalogue<?>> library = new ArrayList<>(ALL.stream().filter(c -> !c.title().startsWith("the ")).toList());
    List<Catalogue<?>> starter = ALL.stream().filter(c -> c.title().startsWith("the ")).toList();
    List<Column> libraryColumns = new ArrayList<>(List.of(
        new Column("Setting", (c, s) -> SettingsDocs.code(c.title() + "." + s.name())),
        new Column("Spring Boot property", (c, s) -> ALL.contains(c) ? SettingsDocs.code(property(c, s)) : "—")));
    libraryColumns.addAll(SettingsDocs.details());
    SettingsDocs.assertBlock(SettingsDocs.doc("configuration.md"), "settings-library", SettingsDocs.table(library, libraryColumns));
    List<Column> starterColumns = new ArrayList<>(List.of(
        new Column("Property", (c, s) -> SettingsDocs.code(property(c, s)))));
    starterColumns.addAll(SettingsDocs.details());
    SettingsDocs.assertBlock(SettingsDocs.doc("spring-boot.md"), "settings-starter", SettingsDocs.table(starter, starterColumns));
  }

  private static String property(Catalogue<?> c, Setting<?> s) {
    return TwinboxSettings.property(c, s) + (s.type() == Setting.Type.MAP ? ".*" : "");
  }

  /** The catalogues as Spring Boot configuration metadata: one property per setting. */
  static String metadata(List<Catalogue<?>> catalogues) {
    List<String> groups = new ArrayList<>();
    List<String> properties = new ArrayList<>();
    for (Catalogue<?> c : catalogues) {
      if (!c.prefix().isEmpty() && !c.title().startsWith("the ")) {
        groups.add("    {\n      \"name\": " + quote("twinbox." + Catalogue.kebab(c.prefix())) + ",\n      \"description\": "
            + quote("Settings of " + c.title() + ".") + "\n    }");
      }
      for (Setting<?> s : c.settings()) {
        StringBuilder p = new StringBuilder("    {\n      \"name\": ").append(quote(TwinboxSettings.property(c, s)))
            .append(",\n      \"type\": ").append(quote(type(s)))
            .append(",\n      \"description\": ").append(quote(description(s)));
        if (s.defaultValue() != null && s.type() != Setting.Type.MAP) {
          p.append(",\n      \"defaultValue\": ").append(switch (s.type()) {
            case INT, LONG, DOUBLE, BOOLEAN -> s.defaultText();
            default -> quote(s.defaultText());
          });
        }
        properties.add(p.append("\n    }").toString());
      }
    }
    return "{\n  \"groups\": [\n" + String.join(",\n", groups) + "\n  ],\n  \"properties\": [\n"
        + String.join(",\n", properties) + "\n  ]\n}\n";
  }

  private static String type(Setting<?> s) {
    return switch (s.type()) {
      case LIST -> "java.util.List<java.lang.String>";
      case MAP -> "java.util.Map<java.lang.String,java.lang.String>";
      default -> s.javaType().getName();
    };
  }

  private static String description(Setting<?> s) {
    String d = s.description();
    if (!s.limits().isEmpty()) {
      d += " Allowed: " + s.limits() + ".";
    }
    if (s.defaultValue() == null && !s.defaultText().isEmpty()) {
      d += " Default: " + s.defaultText() + ".";
    }
    return d + (s.secret() ? " Secret: never shown." : "");
  }

  private static String quote(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> b.append(ch < 0x20 ? String.format("\\u%04x", (int) ch) : ch);
      }
    }
    return b.append('"').toString();
  }

  /** Only the setting's property, plus what a rule of its catalogue needs to let the value through. */
  private static MockEnvironment environment(Catalogue<?> c, Setting<?> s, String property, String value) {
    MockEnvironment env = new MockEnvironment().withProperty(property, value);
    if (c == io.twinbox.rabbitmq.RabbitInboxConsumer.Builder.SETTINGS && s.name().equals("prefetch")) {
      env.setProperty(TwinboxSettings.property(c, "batchSize"), "1"); // batchSize <= prefetch
    }
    if (s == StarterSettings.RELAY_TRANSPORT) { // a chosen broker must be configured
      env.setProperty("twinbox.kafka.bootstrap-servers", "k:9092");
      env.setProperty("twinbox.rabbitmq.host", "r");
      env.setProperty("twinbox.nats.url", "nats://n:4222");
    }
    return env;
  }

  @SuppressWarnings("unchecked")
  private static String refusal(Setting<?> s, Object bad, String property) {
    try {
      ((Setting<Object>) s).check(bad, property);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError(property + ": " + bad + " should be out of range");
  }

  private static ClassLoader loader() {
    return SettingsAgreementTest.class.getClassLoader();
  }

  /** For each setting the config shows (by accessor name; {@code retry.x} is {@code retryPolicy().x()}), its default. */
  private static int compare(Catalogue<?> catalogue, Object config) throws ReflectiveOperationException {
    int compared = 0;
    for (Setting<?> s : catalogue.settings()) {
      Object at = config;
      for (String part : s.name().split("\\.")) {
        Method m = method(at.getClass(), part);
        at = m == null ? null : m.invoke(at);
        if (at == null) {
          break;
        }
      }
      if (at != null && s.defaultValue() != null) {
        assertThat(at).as(catalogue.prefix() + "." + s.name() + " of the bean").isEqualTo(s.defaultValue());
        compared++;
      }
    }
    return compared;
  }

  private static Method method(Class<?> type, String name) {
    for (String n : List.of(name, name + "Policy")) {
      try {
        Method m = type.getMethod(n);
        m.setAccessible(true);
        return m;
      } catch (NoSuchMethodException e) {
        // next
      }
    }
    return null;
  }

}
