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
    assertThat(s.get("relay.batch.size")).as("unset: the Relay.Builder default applies")
        .isEqualTo(io.twinbox.RelaySettings.BATCH_SIZE.format(io.twinbox.RelaySettings.BATCH_SIZE.defaultValue()));
    assertThat(s.get("db.pool.size")).isEqualTo("6");
    assertThat(s.kafkaProperties()).containsEntry("sasl.jaas.config", "x password=\"s3cr3t-jaas\";");
    assertThat(s.describe()).contains("kafka.producer.sasl.jaas.config=****").doesNotContain("s3cr3t");
    assertThat(s.secretValues()).contains("s3cr3t-jaas");
  }

  @Test
  void theHttpSideBindsLoopbackByDefault() {
    assertThat(Settings.load(null, Map.of(), Map.of()).get("http.bind")).isEqualTo("127.0.0.1");
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
    Settings s = Settings.load(null, Map.of("TWINBOX_RABBITMQ_URI", "amqp://relay:p%40ss@rabbit:5672/vh",
        "TWINBOX_DB_URL", "jdbc:postgresql://h/db?user=u&password=pw123&ssl=true"), Map.of());
    assertThat(s.secretValues()).contains("p%40ss", "p@ss", "pw123");
    assertThat(s.describe()).doesNotContain("p%40ss").doesNotContain("pw123")
        .contains("rabbitmq.uri=amqp://****@rabbit:5672/vh", "db.url=jdbc:postgresql://h/db?user=u&password=****&ssl=true");
  }

  /**
   * Issue 22, Medium-4: every form a secret takes in the settings is masked in the start-up line and
   * listed for the output scrubber — a NATS token as URL user-info without a colon, every secret
   * JDBC parameter (not only the first one named exactly {@code password}), and Kafka key material.
   */
  @Test
  void everySecretFormIsMaskedInDescribeAndListedForTheScrubber() {
    String pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCanaryPemLine1\n"
        + "-----END PRIVATE KEY-----";
    Map<String, String> env = new HashMap<>();
    env.put("TWINBOX_NATS_URL", "nats://natsCanaryTok3n@127.0.0.1:4222,nats://natsCanaryTok3n@127.0.0.2:4222");
    env.put("TWINBOX_DB_URL", "jdbc:postgresql://h/db?sslpassword=sslCanaryPw&trustStorePassword=tsCanaryPw"
        + "&password=pwCanary&ssl=true");
    env.put("TWINBOX_KAFKA_PROPERTY_SSL_KEYSTORE_KEY", pem);
    env.put("TWINBOX_KAFKA_PROPERTY_SSL_TRUSTSTORE_CERTIFICATES", "certCanaryValue");
    env.put("TWINBOX_KAFKA_PROPERTY_SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"jaasCanaryPw\";");
    env.put("TWINBOX_KAFKA_PROPERTY_SSL_KEY_PASSWORD", "keyCanaryPw");
    Settings s = Settings.load(null, env, Map.of());
    String described = s.describe();
    for (String secret : new String[] {"natsCanaryTok3n", "sslCanaryPw", "tsCanaryPw", "pwCanary", "CanaryPemLine1",
        "BEGIN PRIVATE KEY", "certCanaryValue", "jaasCanaryPw", "keyCanaryPw"}) {
      assertThat(described).as(secret).doesNotContain(secret);
    }
    assertThat(described).contains("nats.url=nats://****@127.0.0.1:4222,nats://****@127.0.0.2:4222",
        "db.url=jdbc:postgresql://h/db?sslpassword=****&trustStorePassword=****&password=****&ssl=true",
        "kafka.producer.ssl.keystore.key=****", "kafka.producer.ssl.truststore.certificates=****",
        "kafka.producer.ssl.key.password=****");
    assertThat(s.secretValues()).contains("natsCanaryTok3n", "sslCanaryPw", "tsCanaryPw", "pwCanary", pem,
        "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCanaryPemLine1", "certCanaryValue", "jaasCanaryPw",
        "keyCanaryPw");
    // Nothing else: a user name, a host or a plain property is not a secret.
    assertThat(s.secretValues()).doesNotContain("u", "127.0.0.1", "h");
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
