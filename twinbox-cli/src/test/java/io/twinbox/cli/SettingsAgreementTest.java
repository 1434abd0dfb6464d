package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Relay;
import io.twinbox.RelaySettings;
import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Settings;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.spi.OutboxStore;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.contract.SettingSamples;
import io.twinbox.testkit.SettingsDocs;
import io.twinbox.testkit.SettingsDocs.Column;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4 of issue 16, the CLI's side: its keys, their defaults, limits and secret flags, the
 * {@code --help} listing, {@code RelayCommand}'s mapping onto {@code Relay.Builder} and the
 * README's CLI table are the catalogues'. Pure logic, no server.
 */
class SettingsAgreementTest {
  private static final Map<String, String> BASE = Map.of("TWINBOX_DB_URL", "jdbc:postgresql://h/db",
      "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", "k:9092");

  @Test
  void everyKeyIsACatalogueSettingWithItsDefaultAndSecretFlag() {
    List<Settings.Key> expected = new ArrayList<>();
    for (Catalogue<?> c : Settings.CATALOGUES) {
      for (Setting<?> s : c.settings()) {
        if (s.type() != Setting.Type.MAP) {
          expected.add(new Settings.Key(Settings.key(c, s), s.defaultValue() == null ? null : s.defaultText(),
              s.secret(), Settings.KEYS.stream().filter(k -> k.name().equals(Settings.key(c, s))).findFirst()
                  .map(Settings.Key::description).orElse("missing")));
        }
      }
    }
    assertThat(Settings.KEYS).containsExactlyElementsOf(expected);
    assertThat(Settings.KEYS).extracting(Settings.Key::name).contains("relay.batch.size", "relay.retry.max.attempts",
        "relay.outage.backoff.max", "health.max.oldest.pending.age", "rabbitmq.host", "nats.publish.timeout");
    assertThat(Settings.KAFKA_PROPERTY_PREFIX).isEqualTo("kafka.producer.");
  }

  @Test
  void everyKeyIsParsedAndCheckedByItsSetting() {
    int checked = 0;
    for (Catalogue<?> c : Settings.CATALOGUES) {
      for (Setting<?> s : c.settings()) {
        String key = Settings.key(c, s);
        Object sample = SettingSamples.valid(s);
        if (sample != null && s.type() != Setting.Type.MAP) {
          assertThat(load(key, s.format(sample)).values(c).get(s)).as(key).isEqualTo(sample);
        }
        Object bad = SettingSamples.invalid(s);
        if (bad != null) {
          String expected = refusal(s, bad, key);
          assertThatThrownBy(() -> load(key, s.format(bad)).values(c)).as(key).isInstanceOf(ConfigException.class)
              .hasMessageContaining(expected);
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(25);
    // Issue 16: the CLI accepted relay.batch.size up to 100,000 while the builder stops at 10,000.
    assertThatThrownBy(() -> RelayCommand.RelaySettings.of(load("relay.batch.size", "10001")))
        .hasMessage("relay.batch.size must be within [1, 10000], was 10001");
  }

  @Test
  void relayCommandAppliesEveryRelayKeyToTheBuilder() throws Exception {
    OutboxStore store = (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (p, m, a) -> {
          if (m.getName().equals("supportsDeadLetters")) { // relay.dead.letters=true builds
            return true;
          }
          throw new UnsupportedOperationException("built, never run");
        });
    Relay.RelayConfig defaults = RelayCommand.RelaySettings.of(load(null, null))
        .apply(Relay.builder(store, RecordingTransport.acking())).build().config();
    int applied = 0;
    for (Setting<?> s : RelaySettings.CATALOGUE.settings()) {
      if (!shown(defaults, s.name())) { // the WAL settings: RelayConfig does not show them
        continue;
      }
      if (s.defaultValue() != null) {
        assertThat(read(defaults, s.name())).as(s.name() + " default").isEqualTo(s.defaultValue());
      }
      Object sample = SettingSamples.valid(s);
      if (sample == null) {
        continue;
      }
      Relay.RelayConfig config = RelayCommand.RelaySettings.of(load(Settings.key(RelaySettings.CATALOGUE, s),
          s.format(sample))).apply(Relay.builder(store, RecordingTransport.acking())).build().config();
      assertThat(read(config, s.name())).as(s.name()).isEqualTo(sample);
      applied++;
    }
    assertThat(applied).isGreaterThan(10);
    // relay.mode reaches the builder too: WAL needs a store that streams its changes, this one does not.
    assertThatThrownBy(() -> RelayCommand.RelaySettings.of(load("relay.mode", "wal"))
        .apply(Relay.builder(store, RecordingTransport.acking())).build())
        .isInstanceOf(io.twinbox.ChangeFeedException.class).hasMessageContaining("RelayMode.WAL");
  }

  private static boolean shown(Object config, String path) {
    try {
      read(config, path);
      return true;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  @Test
  void helpListsEveryKeyWithItsEnvironmentNameAndDefault() {
    StringWriter out = new StringWriter();
    Twinbox.run(new String[] {"relay", "--help"}, Map.of(), new PrintWriter(out), new PrintWriter(new StringWriter()));
    for (Settings.Key k : Settings.KEYS) {
      assertThat(out.toString()).contains("  " + k.name() + " / " + k.envName()
          + (k.defaultValue() == null ? "" : " (" + k.defaultValue() + ")"));
    }
    assertThat(out.toString()).contains("kafka.producer.<name> / TWINBOX_KAFKA_PRODUCER_<NAME>");
  }

  @Test
  void renamedKeysAreStillReadWithAWarning() {
    Settings s = Settings.load(null, Map.of("TWINBOX_RELAY_MAX_ATTEMPTS", "3", "TWINBOX_KAFKA_PROPERTY_LINGER_MS", "5"),
        Map.of("health.max.pending.age", "1m"));
    assertThat(s.get("relay.retry.max.attempts")).isEqualTo("3");
    assertThat(s.get("health.max.oldest.pending.age")).isEqualTo("1m");
    assertThat(s.kafkaProperties()).containsEntry("linger.ms", "5");
    assertThat(s.warnings()).hasSize(3).allMatch(w -> w.contains("is now called"));
  }

  @Test
  void theReadmeTableIsTheCatalogues() {
    List<Column> columns = new ArrayList<>(List.of(new Column("Key / environment variable", (c, s) -> {
      String key = Settings.key(c, s) + (s.type() == Setting.Type.MAP ? ".<name>" : "");
      String env = new Settings.Key(Settings.key(c, s) + (s.type() == Setting.Type.MAP ? "." : ""), null, false, "")
          .envName() + (s.type() == Setting.Type.MAP ? "<NAME>" : "");
      return SettingsDocs.code(key) + " / " + SettingsDocs.code(env);
    })));
    columns.addAll(SettingsDocs.details());
    SettingsDocs.assertBlock(SettingsDocs.doc("cli.md"), "settings-cli", SettingsDocs.table(Settings.CATALOGUES, columns));
  }

  private static Settings load(String key, String value) {
    Map<String, String> env = new HashMap<>(BASE);
    if (key != null) {
      env.put(new Settings.Key(key, null, false, "").envName(), value);
    }
    return Settings.load(null, env, Map.of());
  }

  @SuppressWarnings("unchecked")
  private static String refusal(Setting<?> s, Object bad, String key) {
    try {
      ((Setting<Object>) s).check(bad, key);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError(key + ": " + bad + " should be out of range");
  }

  /** {@code retry.maxAttempts} of a relay config is {@code retryPolicy().maxAttempts()}. */
  private static Object read(Object config, String path) throws ReflectiveOperationException {
    Object at = config;
    for (String part : path.split("\\.")) {
      Method m;
      try {
        m = at.getClass().getMethod(part);
      } catch (NoSuchMethodException e) {
        m = at.getClass().getMethod(part + "Policy");
      }
      m.setAccessible(true);
      at = m.invoke(at);
    }
    return at;
  }
}
