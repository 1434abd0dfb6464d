package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Durations;
import io.twinbox.cli.internal.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings' precedence, environment mapping, strictness and masking. Pure logic, no server. */
class SettingsTest {
  @Test
  void fileThenEnvironmentThenOptions(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("t.properties");
    Files.writeString(file, "db.url=jdbc:postgresql://file/db\ndb.user=file\nrelay.workers=3\nkafka.topic=t\n");
    Map<String, String> env = Map.of("TWINBOX_DB_USER", "env", "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
        "TWINBOX_KAFKA_PROPERTY_SASL_JAAS_CONFIG", "x password=\"s3cr3t-jaas\";", "PATH", "/bin");
    Map<String, String> options = new HashMap<>();
    options.put("db.url", "jdbc:postgresql://option/db");
    options.put("db.user", null);
    Settings s = Settings.load(file, env, options);
    assertThat(s.get("db.url")).isEqualTo("jdbc:postgresql://option/db");
    assertThat(s.get("db.user")).isEqualTo("env");
    assertThat(s.get("kafka.bootstrap.servers")).isEqualTo("k:9092");
    assertThat(s.intValue("relay.workers", 1, 64)).isEqualTo(3);
    assertThat(s.get("relay.batch.size")).as("unset: the Relay.Builder default applies").isNull();
    assertThat(s.get("db.pool.size")).isEqualTo("6");
    assertThat(s.kafkaProperties()).containsEntry("sasl.jaas.config", "x password=\"s3cr3t-jaas\";");
    assertThat(s.describe()).contains("kafka.property.sasl.jaas.config=****").doesNotContain("s3cr3t");
    assertThat(s.secretValues()).contains("s3cr3t-jaas");
  }

  @Test
  void everyKeyHasItsEnvironmentName() {
    for (Settings.Key k : Settings.KEYS) {
      assertThat(Settings.load(null, Map.of(k.envName(), "v"), Map.of()).get(k.name())).isEqualTo("v");
    }
    assertThat(new Settings.Key("db.url", null, false, "").envName()).isEqualTo("TWINBOX_DB_URL");
  }

  @Test
  void unknownKeysAndBadValuesAreNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("t.properties");
    Files.writeString(file, "db.url=x\nrelay.wrokers=2\n");
    assertThatThrownBy(() -> Settings.load(file, Map.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown setting 'relay.wrokers'");
    assertThatThrownBy(() -> Settings.load(null, Map.of("TWINBOX_RELAY_WROKERS", "2"), Map.of()))
        .hasMessageContaining("TWINBOX_RELAY_WROKERS");
    Settings s = Settings.load(null, Map.of("TWINBOX_RELAY_WORKERS", "many", "TWINBOX_DB_PASSWORD", "hunter22",
        "TWINBOX_TRANSPORT", "smoke"), Map.of());
    assertThatThrownBy(() -> s.intValue("relay.workers", 1, 64)).hasMessageContaining("relay.workers")
        .hasMessageContaining("'many'");
    assertThatThrownBy(() -> s.choice("transport", "kafka", "nats")).hasMessageContaining("transport");
    assertThatThrownBy(() -> s.require("db.url")).hasMessageContaining("TWINBOX_DB_URL");
    assertThat(s.describe()).contains("db.password=****").doesNotContain("hunter22");
  }

  @Test
  void passwordsInsideUrlsAreMasked() {
    assertThat(Settings.mask("amqp://relay:p%40ss@rabbit:5672/vh")).isEqualTo("amqp://relay:****@rabbit:5672/vh");
    assertThat(Settings.mask("jdbc:postgresql://h/db?user=u&password=pw123&ssl=true"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=****&ssl=true");
    assertThat(Settings.mask("nats://h:4222")).isEqualTo("nats://h:4222");
    Settings s = Settings.load(null, Map.of("TWINBOX_RABBITMQ_URI", "amqp://relay:p%40ss@rabbit:5672/vh"), Map.of());
    assertThat(s.secretValues()).contains("p%40ss", "p@ss");
    assertThat(s.describe()).doesNotContain("p%40ss");
  }

  @Test
  void durations() {
    assertThat(Durations.parse("x", "500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("x", "30d")).isEqualTo(Duration.ofDays(30));
    assertThat(Durations.parse("x", "PT5M")).isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> Durations.parse("--older-than", "-5s")).hasMessageContaining("--older-than");
    assertThatThrownBy(() -> Durations.parse("--older-than", "soon")).isInstanceOf(ConfigException.class);
  }
}
