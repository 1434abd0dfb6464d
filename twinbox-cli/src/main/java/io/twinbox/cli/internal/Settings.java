package io.twinbox.cli.internal;

import java.io.IOException;
import java.io.Reader;
import java.net.URLDecoder;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CLI's configuration: a properties file, then environment variables, then command-line
 * options, each overriding the one before. Every key is known in advance (see {@link #KEYS}); an
 * unknown key in the file or an unknown {@code TWINBOX_*} variable is an error that names it.
 *
 * <p>Environment mapping: {@code TWINBOX_} + the key upper-cased with {@code .} and {@code -} as
 * {@code _}, e.g. {@code db.url} ← {@code TWINBOX_DB_URL}, {@code kafka.bootstrap.servers} ←
 * {@code TWINBOX_KAFKA_BOOTSTRAP_SERVERS}. Kafka producer properties go under {@code
 * kafka.property.<name>} ← {@code TWINBOX_KAFKA_PROPERTY_<NAME>} ({@code _} read back as {@code .}).
 *
 * <p>Secrets (passwords, tokens, secret-looking Kafka properties, the password part of URLs) are
 * never shown: {@link #describe()} masks them and {@link #secretValues()} lists them for the output
 * scrubber. Immutable.
 */
public final class Settings {
  /** A known setting. */
  public record Key(String name, String defaultValue, boolean secret, String description) {
    public String envName() {
      return envName(name);
    }

    static String envName(String key) {
      return "TWINBOX_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
  }

  public static final String KAFKA_PROPERTY_PREFIX = "kafka.property.";
  private static final String ENV_PREFIX = "TWINBOX_";
  private static final String KAFKA_ENV_PREFIX = Key.envName(KAFKA_PROPERTY_PREFIX);
  private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|secret|jaas|token|credential).*");
  private static final Pattern URL_PASSWORD = Pattern.compile("(?i)[?&;]password=([^&;]*)");
  private static final String MASK = "****";

  /** Every setting, in the order {@link #describe()} lists them. */
  public static final List<Key> KEYS = List.of( // relay.* without a default: the Relay.Builder's applies
      new Key("db.url", null, false, "JDBC URL of the database holding twinbox_outbox (required)"),
      new Key("db.user", null, false, "database user"),
      new Key("db.password", null, true, "database password"),
      new Key("db.pool.size", "6", false, "relay: connections in the pool"),
      new Key("db.connect.timeout", "10s", false, "longest wait for a connection"),
      new Key("transport", "kafka", false, "kafka, rabbitmq or nats"),
      new Key("kafka.bootstrap.servers", null, false, "Kafka bootstrap servers (transport=kafka)"),
      new Key("kafka.topic", null, false, "one topic for every event; default: the aggregate type, lower-cased"),
      new Key("rabbitmq.uri", null, false, "amqp://user:password@host:5672/vhost (transport=rabbitmq)"),
      new Key("rabbitmq.exchange", null, false, "one exchange for every event; default: the aggregate type, lower-cased (routing key = event type)"),
      new Key("nats.url", null, false, "nats://host:4222 (transport=nats)"),
      new Key("nats.subject.prefix", null, false, "subject prefix; default twinbox (subject = prefix.aggregate type.event type)"),
      new Key("relay.name", "twinbox", false, "the relay tag of its metrics"),
      new Key("relay.source", null, false, "CloudEvents source of every message"),
      new Key("relay.node.id", null, false, "the relay's name in the lease table; default pid@host-random"),
      new Key("relay.batch.size", null, false, "rows claimed at once"),
      new Key("relay.workers", null, false, "worker threads"),
      new Key("relay.poll.interval", null, false, "longest idle wait between claims"),
      new Key("relay.lease.ttl", null, false, "partition lease length"),
      new Key("relay.publish.timeout", null, false, "longest wait for a wave's acknowledgements"),
      new Key("relay.max.attempts", null, false, "attempts before an event is FAILED"),
      new Key("relay.completion.mode", null, false, "DELETE or MARK (keep rows as PUBLISHED)"),
      new Key("http.enabled", "true", false, "serve /metrics, /health and the admin page"),
      new Key("http.bind", "0.0.0.0", false, "address the HTTP server listens on"),
      new Key("http.port", "8080", false, "HTTP port; 0 = any free port (logged)"),
      new Key("health.max.pending.age", "5m", false, "/health is DOWN once the oldest pending event is older"),
      new Key("admin.read.token", null, true, "token for the read-only admin page; the page is off without one"),
      new Key("admin.token", null, true, "token that may also retry and skip"));

  private static final Map<String, Key> BY_NAME = new LinkedHashMap<>();
  private static final Map<String, Key> BY_ENV = new LinkedHashMap<>();

  static {
    for (Key k : KEYS) {
      BY_NAME.put(k.name(), k);
      BY_ENV.put(k.envName(), k);
    }
  }

  private final Map<String, String> values;

  private Settings(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
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
        checkKnown(name, "in " + file);
        values.put(name, p.getProperty(name).trim());
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
      } else if (BY_ENV.containsKey(var)) {
        key = BY_ENV.get(var).name();
      } else {
        throw new ConfigException("unknown environment variable " + var + ": no setting maps to it (known: "
            + String.join(", ", BY_ENV.keySet()) + ", " + KAFKA_ENV_PREFIX + "*)");
      }
      values.put(key, e.getValue().trim());
    }
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      if (e.getValue() != null) {
        checkKnown(e.getKey(), "(option)");
        values.put(e.getKey(), e.getValue().trim());
      }
    }
    values.values().removeIf(String::isEmpty);
    return new Settings(values);
  }

  private static Map<String, String> toStrings(Properties p) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String n : p.stringPropertyNames()) {
      m.put(n, p.getProperty(n));
    }
    return m;
  }

  private static void checkKnown(String name, String where) {
    if (BY_NAME.containsKey(name)) {
      return;
    }
    if (name.startsWith(KAFKA_PROPERTY_PREFIX) && name.length() > KAFKA_PROPERTY_PREFIX.length()) {
      return;
    }
    throw new ConfigException("unknown setting '" + name + "' " + where + "; known settings: "
        + String.join(", ", BY_NAME.keySet()) + ", " + KAFKA_PROPERTY_PREFIX + "<producer property>");
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

  public Duration duration(String name) {
    return Durations.parse(name, require(name));
  }

  public boolean bool(String name) {
    String v = require(name).toLowerCase(Locale.ROOT);
    if (v.equals("true") || v.equals("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new ConfigException(name + " must be true or false, was '" + v + "'");
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

  /** The {@code kafka.property.*} settings, without the prefix. */
  public Map<String, String> kafkaProperties() {
    Map<String, String> m = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith(KAFKA_PROPERTY_PREFIX)) {
        m.put(k.substring(KAFKA_PROPERTY_PREFIX.length()), v);
      }
    });
    return m;
  }

  private static Key key(String name) {
    return BY_NAME.get(name);
  }

  private static boolean isSecret(String name) {
    Key k = key(name);
    if (k != null) {
      return k.secret();
    }
    return SECRET_NAME.matcher(name).matches();
  }

  private String shown(String name, String value) {
    return isSecret(name) ? MASK : mask(value);
  }

  /** Every value set, one {@code key=value} per entry, secrets masked. For the start-up log. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>(BY_NAME.keySet());
    names.addAll(values.keySet());
    for (String n : names) {
      String v = get(n);
      if (v != null) {
        parts.add(n + "=" + shown(n, v));
      }
    }
    return String.join(", ", parts);
  }

  /**
   * Every secret value: secret settings, secret-looking Kafka properties, and passwords inside
   * URLs ({@code user:password@} or {@code password=} parameters).
   */
  public Set<String> secretValues() {
    Set<String> s = new LinkedHashSet<>();
    values.forEach((k, v) -> {
      if (isSecret(k)) {
        s.add(v);
        Matcher m = Pattern.compile("(?i)password=\"([^\"]*)\"").matcher(v); // sasl.jaas.config
        while (m.find()) {
          s.add(m.group(1));
        }
      }
      String p = urlPassword(v);
      if (p != null) {
        s.add(p);
        try {
          s.add(URLDecoder.decode(p, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          // not URL-encoded: the raw form is already listed
        }
      }
    });
    s.removeIf(String::isEmpty);
    return s;
  }

  /** A URL with its password replaced by {@code ****}; other text unchanged. */
  public static String mask(String value) {
    String p = urlPassword(value);
    return p == null || p.isEmpty() ? value : value.replace(p, MASK);
  }

  private static String urlPassword(String value) {
    Matcher m = URL_PASSWORD.matcher(value);
    if (m.find()) {
      return m.group(1);
    }
    int scheme = value.indexOf("://");
    if (scheme < 0) {
      return null;
    }
    int at = value.indexOf('@', scheme + 3);
    int slash = value.indexOf('/', scheme + 3);
    if (at < 0 || (slash >= 0 && slash < at)) {
      return null;
    }
    String userInfo = value.substring(scheme + 3, at);
    int colon = userInfo.indexOf(':');
    if (colon < 0) {
      return null;
    }
    return userInfo.substring(colon + 1);
  }
}
