package io.twinbox.kafka.internal;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Validates the user's producer properties and adds Twinbox's forced and default settings.
 *
 * <p>Every error names the property and never its value: the same map may hold SASL passwords or
 * keystore secrets. Immutable and thread-safe.
 */
public final class ProducerSettings {
  public static final int DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;
  /** Upper bound of the request timeout Twinbox picks when the user sets none. */
  public static final int DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
  /**
   * 0: the relay already sends a whole wave at once and waits for its acknowledgements, so a
   * linger only delays every wave (measured in twinbox-bench: +46 % relay throughput at 2 workers
   * with 0 instead of 5 ms). Records sent while a request is in flight are still batched.
   */
  public static final long DEFAULT_LINGER_MS = 0;
  public static final int DEFAULT_BATCH_SIZE = 65_536;
  public static final long DEFAULT_MAX_BLOCK_MS = 5_000;
  public static final int DEFAULT_MAX_IN_FLIGHT = 5;
  public static final String DEFAULT_COMPRESSION = "none";

  /** Set by Twinbox itself; a user value would change the wire format or the guarantees. */
  private static final Set<String> OWNED = Set.of(
      ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
      ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
      ProducerConfig.TRANSACTIONAL_ID_CONFIG);

  private final Map<String, Object> properties;
  private final Set<String> userPropertyNames;
  private final String bootstrapServers;
  private final long lingerMs;
  private final int deliveryTimeoutMs;
  private final int requestTimeoutMs;
  private final long maxBlockMs;
  private final int maxInFlight;
  private final int batchSize;
  private final String compressionType;

  private ProducerSettings(Map<String, ?> user) {
    Map<String, Object> p = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : user.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "producer property names cannot be null");
      if (e.getValue() == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      if (OWNED.contains(name)) {
        throw new IllegalArgumentException(name + " must not be set: Twinbox sets it (String keys, "
            + "CloudEvents byte[] values, idempotent non-transactional producer)");
      }
      p.put(name, e.getValue());
    }
    this.userPropertyNames = Collections.unmodifiableSet(new TreeSet<>(p.keySet()));
    this.bootstrapServers = bootstrap(p.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));

    requireAcksAll(p.get(ProducerConfig.ACKS_CONFIG));
    requireTrue(p, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        "Twinbox relies on the idempotent producer for ordered, duplicate-free retries");
    Object retries = p.get(ProducerConfig.RETRIES_CONFIG);
    if (retries != null && number(ProducerConfig.RETRIES_CONFIG, retries) != Integer.MAX_VALUE) {
      throw new IllegalArgumentException(ProducerConfig.RETRIES_CONFIG + " must not be lowered: "
          + "delivery.timeout.ms bounds how long a record is retried");
    }
    if (Boolean.parseBoolean(String.valueOf(p.get(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG)))) {
      throw new IllegalArgumentException(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG
          + " must not be true: records of one aggregate must share a partition to stay in order");
    }

    this.lingerMs = longSetting(p, ProducerConfig.LINGER_MS_CONFIG, DEFAULT_LINGER_MS, 0);
    this.deliveryTimeoutMs = (int) longSetting(p, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
        DEFAULT_DELIVERY_TIMEOUT_MS, 1, Integer.MAX_VALUE);
    // Kafka's own request timeout default (30 s) plus any linger exceeds a 30 s delivery timeout,
    // which Kafka then silently stretches; pick one that fits instead.
    long fittingRequestTimeout = Math.min(DEFAULT_REQUEST_TIMEOUT_MS, deliveryTimeoutMs - lingerMs);
    this.requestTimeoutMs = (int) longSetting(p, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        Math.max(1, fittingRequestTimeout), 1, Integer.MAX_VALUE);
    if ((long) deliveryTimeoutMs < requestTimeoutMs + lingerMs) {
      throw new IllegalArgumentException(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG
          + " (default " + DEFAULT_DELIVERY_TIMEOUT_MS + ") must be >= "
          + ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG + " + " + ProducerConfig.LINGER_MS_CONFIG);
    }
    this.maxBlockMs = longSetting(p, ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK_MS, 0);
    this.maxInFlight = (int) longSetting(p,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, DEFAULT_MAX_IN_FLIGHT, 1, 5);
    this.batchSize = (int) longSetting(p, ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_SIZE, 0,
        Integer.MAX_VALUE);
    p.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, DEFAULT_COMPRESSION);
    this.compressionType = String.valueOf(p.get(ProducerConfig.COMPRESSION_TYPE_CONFIG));

    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
    this.properties = Collections.unmodifiableMap(p);
  }

  /**
   * Validates {@code user} and returns the effective settings.
   *
   * @throws IllegalArgumentException naming the first offending property
   */
  public static ProducerSettings of(Map<String, ?> user) {
    return new ProducerSettings(Objects.requireNonNull(user, "producerProperties cannot be null"));
  }

  /** The properties to create a {@code KafkaProducer} with; no serializer entries. */
  public Map<String, Object> producerProperties() {
    return properties;
  }

  /**
   * The properties for the admin client that checks whether a topic exists: the producer's, with
   * the settings only a producer knows left out (the admin client would warn about each), so that
   * connection, security and any plug-in settings stay the same. A {@code client.id} gets the suffix
   * {@code -topic-check}.
   */
  public Map<String, Object> adminProperties() {
    Set<String> adminNames = AdminClientConfig.configNames();
    Set<String> producerNames = ProducerConfig.configNames();
    Map<String, Object> admin = new LinkedHashMap<>();
    properties.forEach((name, value) -> {
      if (adminNames.contains(name) || !producerNames.contains(name)) {
        admin.put(name, value);
      }
    });
    admin.computeIfPresent(CommonClientConfigs.CLIENT_ID_CONFIG, (k, id) -> id + "-topic-check");
    return admin;
  }

  /** The names (never the values) of the properties the user gave, sorted. */
  public Set<String> userPropertyNames() {
    return userPropertyNames;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public long lingerMs() {
    return lingerMs;
  }

  public int deliveryTimeoutMs() {
    return deliveryTimeoutMs;
  }

  public int requestTimeoutMs() {
    return requestTimeoutMs;
  }

  public long maxBlockMs() {
    return maxBlockMs;
  }

  public int maxInFlight() {
    return maxInFlight;
  }

  public int batchSize() {
    return batchSize;
  }

  public String compressionType() {
    return compressionType;
  }

  private static String bootstrap(Object value) {
    String text = value instanceof Collection<?> c
        ? String.join(",", c.stream().map(String::valueOf).toList())
        : value == null ? "" : String.valueOf(value);
    if (text.isBlank()) {
      throw new IllegalArgumentException(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG + " is required");
    }
    return text.trim();
  }

  private static void requireAcksAll(Object acks) {
    if (acks == null) {
      return;
    }
    String text = String.valueOf(acks).trim().toLowerCase(Locale.ROOT);
    if (!text.equals("all") && !text.equals("-1")) {
      throw new IllegalArgumentException(ProducerConfig.ACKS_CONFIG
          + " must be all (or -1): Twinbox publishes with the strongest acknowledgement");
    }
  }

  private static void requireTrue(Map<String, Object> p, String name, String why) {
    Object value = p.get(name);
    if (value != null && !"true".equalsIgnoreCase(String.valueOf(value).trim())) {
      throw new IllegalArgumentException(name + " must be true: " + why);
    }
  }

  private static long longSetting(Map<String, Object> p, String name, long defaultValue, long min) {
    return longSetting(p, name, defaultValue, min, Long.MAX_VALUE);
  }

  /** Reads a numeric setting, or puts the default; normalises it to text, which Kafka parses. */
  private static long longSetting(Map<String, Object> p, String name, long defaultValue, long min,
      long max) {
    Object raw = p.get(name);
    long value = raw == null ? defaultValue : number(name, raw);
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + (max == Long.MAX_VALUE || max == Integer.MAX_VALUE
          ? " must be >= " + min : " must be between " + min + " and " + max));
    }
    p.put(name, Long.toString(value));
    return value;
  }

  private static long number(String name, Object raw) {
    if (raw instanceof Integer || raw instanceof Long || raw instanceof Short) {
      return ((Number) raw).longValue();
    }
    try {
      return Long.parseLong(String.valueOf(raw).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number");
    }
  }
}
