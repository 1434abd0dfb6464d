package io.twinbox.cli.internal;

import io.twinbox.HealthSettings;
import io.twinbox.RelaySettings;
import io.twinbox.RetentionSettings;
import io.twinbox.kafka.KafkaPublisherSettings;
import io.twinbox.nats.NatsPublisherSettings;
import io.twinbox.rabbitmq.RabbitPublisherSettings;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The CLI's configuration: a properties file, then environment variables, then command-line
 * options, each overriding the one before. Every key is derived from a settings catalogue (see
 * {@link #CATALOGUES}): {@code <prefix>.<setting, dotted>}, e.g. {@code relay.batch.size} for
 * {@code RelaySettings.BATCH_SIZE}, with the catalogue's default, limits and secret flag. An
 * unknown key in the file or an unknown {@code TWINBOX_*} variable is an error that names it; a
 * key renamed since an earlier version is still read, with a warning ({@link #warnings()}).
 *
 * <p>Environment mapping: {@code TWINBOX_} + the key upper-cased with {@code .} and {@code -} as
 * {@code _}, e.g. {@code db.url} ← {@code TWINBOX_DB_URL}, {@code kafka.bootstrap.servers} ←
 * {@code TWINBOX_KAFKA_BOOTSTRAP_SERVERS}. Kafka producer properties go under {@code
 * kafka.producer.<name>} ← {@code TWINBOX_KAFKA_PRODUCER_<NAME>} ({@code _} read back as {@code .}).
 *
 * <p>Secrets are never shown: what counts as one is decided in one place, {@link Scrubber} (secret
 * settings, any key or parameter whose name says password, secret, token, credential or key
 * material, and all URL user-info). {@link #describe()} masks them and {@link #secretValues()}
 * lists them for the output scrubber. Immutable.
 */
public final class Settings {
  /** A known setting, as the CLI shows it. */
  public record Key(String name, String defaultValue, boolean secret, String description) {
    public String envName() {
      return envName(name);
    }

    static String envName(String key) {
      return "TWINBOX_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
  }

  /** Every catalogue the CLI reads, in the order {@link #describe()} and {@code --help} list them. */
  public static final List<Catalogue<?>> CATALOGUES = List.of(SidecarSettings.DB, SidecarSettings.TOP,
      KafkaPublisherSettings.CATALOGUE, RabbitPublisherSettings.CATALOGUE, NatsPublisherSettings.CATALOGUE,
      SidecarSettings.RELAY, RelaySettings.CATALOGUE, RetentionSettings.CATALOGUE, SidecarSettings.HTTP,
      HealthSettings.CATALOGUE, SidecarSettings.ADMIN);

  /** Keys of earlier versions, read as their new names. */
  private static final Map<String, String> RENAMED = Map.of(
      "relay.max.attempts", "relay.retry.max.attempts",
      "health.max.pending.age", "health.max.oldest.pending.age");
  private static final String OLD_KAFKA_PROPERTY_PREFIX = "kafka.property.";

  private static final Map<String, Entry> BY_NAME = new LinkedHashMap<>();
  private static final Map<String, String> BY_ENV = new LinkedHashMap<>();
  private static final Map<String, Entry> MAPS = new LinkedHashMap<>();

  /** A key with its catalogue and setting. */
  private record Entry(Catalogue<?> catalogue, Setting<?> setting, Key key) {}

  static {
    for (Catalogue<?> c : CATALOGUES) {
      for (Setting<?> s : c.settings()) {
        String name = key(c, s);
        Key k = new Key(s.type() == Setting.Type.MAP ? name + "." : name,
            s.defaultValue() == null ? null : s.defaultText(), s.secret(), describe(s));
        Entry e = new Entry(c, s, k);
        (s.type() == Setting.Type.MAP ? MAPS : BY_NAME).put(k.name(), e);
        if (s.type() != Setting.Type.MAP) {
          BY_ENV.put(k.envName(), name);
        }
      }
    }
    RENAMED.forEach((old, now) -> BY_ENV.put(Key.envName(old), old));
  }

  /** Every setting, in the order {@link #describe()} lists them; the producer properties' prefix apart. */
  public static final List<Key> KEYS = BY_NAME.values().stream().map(Entry::key).toList();

  /** The Kafka producer properties' prefix, {@code kafka.producer.}. */
  public static final String KAFKA_PROPERTY_PREFIX = key(KafkaPublisherSettings.CATALOGUE,
      KafkaPublisherSettings.PRODUCER) + ".";
  private static final String ENV_PREFIX = "TWINBOX_";
  private static final String KAFKA_ENV_PREFIX = Key.envName(KAFKA_PROPERTY_PREFIX);
  private static final String OLD_KAFKA_ENV_PREFIX = Key.envName(OLD_KAFKA_PROPERTY_PREFIX);
  private static final String MASK = Scrubber.MASK;

  private final Map<String, String> values;
  private final List<String> warnings;

  private Settings(Map<String, String> values, List<String> warnings) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    this.warnings = List.copyOf(warnings);
  }

  /** The CLI key of a catalogue's setting: {@code relay} + {@code retry.maxAttempts} → {@code relay.retry.max.attempts}. */
  public static String key(Catalogue<?> catalogue, Setting<?> setting) {
    return key(catalogue, setting.name());
  }

  private static String key(Catalogue<?> catalogue, String name) {
    return (catalogue.prefix().isEmpty() ? "" : Catalogue.dotted(catalogue.prefix()) + ".") + Catalogue.dotted(name);
  }

  private static String describe(Setting<?> s) {
    String limits = s.limits();
    return s.description() + (limits.isEmpty() || s.type() == Setting.Type.STRING && s.maxLength() > 0
        && limits.equals("1–" + s.maxLength() + " characters") ? "" : " (" + limits + ")");
  }

  /**
   * Loads the settings.
   *
   * @param file a properties file, or null for none
   * @param env the environment (normally {@link System#getenv()})
   * @param overrides values from command-line options (null values are ignored)
   * @throws ConfigException naming the unknown key or unreadable file
   */
  public static Settings load(Path file, Map<String, String> env, Map<String, String> overrides) {
    Map<String, String> values = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    if (file != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (NoSuchFileException e) {
        throw new ConfigException("config file " + file + " does not exist");
      } catch (IOException | IllegalArgumentException e) {
        throw new ConfigException("config file " + file + " cannot be read: " + e.getClass().getSimpleName());
      }
      for (String name : new TreeMap<>(Map.copyOf(toStrings(p))).keySet()) {
        values.put(known(name, "in " + file, warnings), p.getProperty(name).trim());
      }
    }
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (!var.startsWith(ENV_PREFIX)) {
        continue;
      }
      String key;
      if (var.startsWith(KAFKA_ENV_PREFIX) && var.length() > KAFKA_ENV_PREFIX.length()) {
        key = KAFKA_PROPERTY_PREFIX + var.substring(KAFKA_ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
      } else if (var.startsWith(OLD_KAFKA_ENV_PREFIX) && var.length() > OLD_KAFKA_ENV_PREFIX.length()) {
        key = known(OLD_KAFKA_PROPERTY_PREFIX + var.substring(OLD_KAFKA_ENV_PREFIX.length()).toLowerCase(Locale.ROOT)
            .replace('_', '.'), "(" + var + ")", warnings);
      } else if (BY_ENV.containsKey(var)) {
        key = known(BY_ENV.get(var), "(" + var + ")", warnings);
      } else {
        throw new ConfigException("unknown environment variable " + var + ": no setting maps to it (known: "
            + String.join(", ", BY_NAME.values().stream().map(x -> x.key().envName()).toList()) + ", "
            + KAFKA_ENV_PREFIX + "*)");
      }
      values.put(key, e.getValue().trim());
    }
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      if (e.getValue() != null) {
        values.put(known(e.getKey(), "(option)", warnings), e.getValue().trim());
      }
    }
    values.values().removeIf(String::isEmpty);
    return new Settings(values, warnings);
  }

  private static Map<String, String> toStrings(Properties p) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String n : p.stringPropertyNames()) {
      m.put(n, p.getProperty(n));
    }
    return m;
  }

  /** The key's current name; a renamed key adds a warning, an unknown one is an error. */
  private static String known(String name, String where, List<String> warnings) {
    String now = RENAMED.get(name);
    if (now == null && name.startsWith(OLD_KAFKA_PROPERTY_PREFIX)) {
      now = KAFKA_PROPERTY_PREFIX + name.substring(OLD_KAFKA_PROPERTY_PREFIX.length());
    }
    if (now != null) {
      warnings.add(name + " " + where + " is now called " + now + "; the old name will stop working");
      return now;
    }
    if (BY_NAME.containsKey(name)) {
      return name;
    }
    if (name.startsWith(KAFKA_PROPERTY_PREFIX) && name.length() > KAFKA_PROPERTY_PREFIX.length()) {
      return name;
    }
    throw new ConfigException("unknown setting '" + name + "' " + where + "; known settings: "
        + String.join(", ", BY_NAME.keySet()) + ", " + KAFKA_PROPERTY_PREFIX + "<producer property>");
  }

  /** Keys given under an earlier name, to be logged. */
  public List<String> warnings() {
    return warnings;
  }

  /**
   * The checked values of {@code catalogue}'s keys that are set (a map's from its prefixed keys);
   * the catalogue's defaults stand for the others.
   *
   * @throws ConfigException naming the key and the limit
   */
  public SettingValues values(Catalogue<?> catalogue) {
    Map<String, Object> explicit = new LinkedHashMap<>();
    for (Setting<?> s : catalogue.settings()) {
      String k = key(catalogue, s);
      if (s.type() == Setting.Type.MAP) {
        Map<String, String> m = prefixed(k + ".");
        if (!m.isEmpty()) {
          explicit.put(s.name(), m);
        }
      } else if (values.containsKey(k)) {
        try {
          explicit.put(s.name(), s.parse(values.get(k), k));
        } catch (IllegalArgumentException e) {
          throw new ConfigException(e.getMessage());
        }
      }
    }
    try {
      return catalogue.values(explicit, name -> key(catalogue, name));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The value of one key (given, else its default), parsed and checked by its setting; null when neither. */
  public <T> T value(Catalogue<?> catalogue, Setting<T> setting) {
    return values(catalogue).get(setting);
  }

  /** The value, else the key's default; null when neither. */
  public String get(String name) {
    Key k = key(name);
    String v = values.get(name);
    return v != null ? v : k == null ? null : k.defaultValue();
  }

  /** The value or a {@link ConfigException} saying how to set it. */
  public String require(String name) {
    String v = get(name);
    if (v == null) {
      throw new ConfigException(name + " is required: set it in the config file, as " + Key.envName(name)
          + " or with the matching option");
    }
    return v;
  }

  public int intValue(String name, int min, int max) {
    String v = require(name);
    try {
      int n = Integer.parseInt(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(name + " must be an integer in [" + min + ", " + max + "], was '" + shown(name, v) + "'");
  }

  /** A whole-number key, checked against its setting's limits. */
  public int intValue(String name) {
    return (Integer) typed(name);
  }

  /** A duration key, checked against its setting's limits when it has one. */
  public Duration duration(String name) {
    return BY_NAME.containsKey(name) ? (Duration) typed(name) : Durations.parse(name, require(name));
  }

  public boolean bool(String name) {
    return (Boolean) typed(name);
  }

  private Object typed(String name) {
    Entry e = BY_NAME.get(name);
    try {
      return e.setting().parse(require(name), name);
    } catch (IllegalArgumentException ex) {
      throw new ConfigException(ex.getMessage());
    }
  }

  /** One of {@code allowed} (case-insensitive), returned lower-cased. */
  public String choice(String name, String... allowed) {
    String v = require(name);
    for (String a : allowed) {
      if (a.equalsIgnoreCase(v)) {
        return a.toLowerCase(Locale.ROOT);
      }
    }
    throw new ConfigException(name + " must be one of " + String.join(", ", allowed) + ", was '" + v + "'");
  }

  /** The {@code kafka.producer.*} settings, without the prefix. */
  public Map<String, String> kafkaProperties() {
    return prefixed(KAFKA_PROPERTY_PREFIX);
  }

  private Map<String, String> prefixed(String prefix) {
    Map<String, String> m = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        m.put(k.substring(prefix.length()), v);
      }
    });
    return m;
  }

  private static Key key(String name) {
    Entry e = BY_NAME.get(name);
    return e == null ? null : e.key();
  }

  private static boolean isSecret(String name) {
    Key k = key(name);
    return k != null && k.secret() || Scrubber.isSecretName(name);
  }

  private String shown(String name, String value) {
    return isSecret(name) ? MASK : Scrubber.maskText(value);
  }

  /** Every value set, one {@code key=value} per entry, secrets masked. For the start-up log. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>(BY_NAME.keySet());
    names.addAll(values.keySet());
    String transport = get("transport") == null ? "" : get("transport").toLowerCase(Locale.ROOT);
    for (String n : names) {
      Entry e = BY_NAME.get(n);
      // The defaults of the brokers not in use are noise: only their keys set are shown.
      boolean otherBroker = e != null && Set.of("kafka", "rabbitmq", "nats").contains(e.catalogue().prefix())
          && !e.catalogue().prefix().equals(transport);
      String v = otherBroker ? values.get(n) : get(n);
      if (v != null) {
        parts.add(n + "=" + shown(n, v));
      }
    }
    return String.join(", ", parts);
  }

  /**
   * Every secret value, for the output scrubber: secret settings whole, and the secrets inside any
   * value (URL user-info, secret-named parameters; see {@link Scrubber#secretsIn}).
   */
  public Set<String> secretValues() {
    Set<String> s = new LinkedHashSet<>();
    values.forEach((k, v) -> {
      if (isSecret(k)) {
        s.add(v);
      }
      s.addAll(Scrubber.secretsIn(k, v));
    });
    s.removeIf(String::isEmpty);
    return s;
  }
}
