package io.twinbox.kafka;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The effective settings of a {@link KafkaPublisher}, for operators (the CLI {@code status} command,
 * the admin page). Holds no secret: of the user's producer properties only the names are kept.
 * Immutable and thread-safe.
 *
 * @param bootstrapServers the {@code bootstrap.servers} list as given
 * @param acks always {@code all}
 * @param idempotence always {@code true}
 * @param maxInFlightRequestsPerConnection 1–5; default 5
 * @param lingerMs default 0
 * @param batchSize bytes; default 65536
 * @param compressionType default {@code none}
 * @param deliveryTimeoutMs how long a record may take before it is reported unavailable; default
 *     30000
 * @param requestTimeoutMs default the smaller of 15000 and {@code deliveryTimeoutMs - lingerMs}
 * @param maxBlockMs the longest one {@code send} may block its caller; default 5000
 * @param topicRouter the router's description, e.g. {@code TopicRouter.byAggregateType()}, or its
 *     class name
 * @param userPropertyNames the names of the producer properties the user set, sorted
 */
public record KafkaPublisherConfig(
    String bootstrapServers,
    String acks,
    boolean idempotence,
    int maxInFlightRequestsPerConnection,
    long lingerMs,
    int batchSize,
    String compressionType,
    int deliveryTimeoutMs,
    int requestTimeoutMs,
    long maxBlockMs,
    String topicRouter,
    Set<String> userPropertyNames) {

  public KafkaPublisherConfig {
    userPropertyNames = Collections.unmodifiableSet(new TreeSet<>(userPropertyNames));
  }
}
