package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Builder validation (brief case d) and the effective settings; needs no broker. */
class KafkaPublisherConfigTest {
  private static final String SECRET = "s3cr3t-Pa55word";
  /** Nothing listens here; the producer connects lazily, so building needs no broker. */
  private static final String NOWHERE = "127.0.0.1:9";

  private static Map<String, Object> props(Object... pairs) {
    Map<String, Object> p = new HashMap<>();
    p.put("bootstrap.servers", NOWHERE);
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
        + "username=\"u\" password=\"" + SECRET + "\";");
    for (int i = 0; i < pairs.length; i += 2) {
      p.put((String) pairs[i], pairs[i + 1]);
    }
    return p;
  }

  private static void assertRejected(Map<String, Object> properties, String property) {
    assertThatThrownBy(() -> KafkaPublisher.builder(properties).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(property + " ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
  }

  /** Was a bare KafkaException at build time, which the sidecar reported as exit 1, not as configuration (2). */
  @Test
  void propertiesTheKafkaClientRefusesAreAConfigurationError() {
    String key = "-----BEGIN PRIVATE KEY-----\n" + SECRET + "\n-----END PRIVATE KEY-----";
    Map<String, Object> p = props("security.protocol", "SSL", "ssl.keystore.type", "PEM", "ssl.keystore.key", key);

    assertThatThrownBy(() -> KafkaPublisher.builder(p).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("producer properties refused by the Kafka client: ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
  }

  @Test
  void acksOtherThanAllIsRefusedByName() {
    assertRejected(props("acks", "1"), "acks");
    assertRejected(props("acks", "0"), "acks");
    assertRejected(props("acks", 1), "acks");
  }

  @Test
  void idempotenceCannotBeTurnedOff() {
    assertRejected(props("enable.idempotence", "false"), "enable.idempotence");
    assertRejected(props("enable.idempotence", false), "enable.idempotence");
  }

  @Test
  void otherGuaranteesCannotBeWeakened() {
    assertRejected(props("retries", 3), "retries");
    assertRejected(props("max.in.flight.requests.per.connection", 6), "max.in.flight.requests.per.connection");
    assertRejected(props("transactional.id", "tx-1"), "transactional.id");
    assertRejected(props("value.serializer", "org.apache.kafka.common.serialization.StringSerializer"),
        "value.serializer");
    assertRejected(props("key.serializer", "org.apache.kafka.common.serialization.StringSerializer"),
        "key.serializer");
    assertRejected(props("partitioner.ignore.keys", "true"), "partitioner.ignore.keys");
  }

  @Test
  void deliveryTimeoutMustCoverRequestTimeoutAndLinger() {
    assertRejected(props("delivery.timeout.ms", 10_000, "request.timeout.ms", 10_000, "linger.ms", 5),
        "delivery.timeout.ms");
    assertRejected(props("request.timeout.ms", 40_000), "delivery.timeout.ms");
  }

  @Test
  void malformedAndMissingValuesAreRefusedByName() {
    assertRejected(props("linger.ms", "soon"), "linger.ms");
    assertRejected(props("linger.ms", -1), "linger.ms");
    Map<String, Object> noBootstrap = props();
    noBootstrap.remove("bootstrap.servers");
    assertRejected(noBootstrap, "bootstrap.servers");
    assertRejected(props("client.id", null), "client.id");
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    try (KafkaPublisher publisher = KafkaPublisher.builder(NOWHERE).build()) {
      KafkaPublisherConfig c = publisher.config();
      assertThat(c.bootstrapServers()).isEqualTo(NOWHERE);
      assertThat(c.acks()).isEqualTo("all");
      assertThat(c.idempotence()).isTrue();
      assertThat(c.maxInFlightRequestsPerConnection()).isEqualTo(5);
      assertThat(c.lingerMs()).isZero();
      assertThat(c.batchSize()).isEqualTo(65_536);
      assertThat(c.compressionType()).isEqualTo("none");
      assertThat(c.deliveryTimeoutMs()).isEqualTo(30_000);
      assertThat(c.requestTimeoutMs()).isEqualTo(15_000);
      assertThat(c.maxBlockMs()).isEqualTo(5_000);
      assertThat(c.topicRouter()).isEqualTo("TopicRouter.byAggregateType()");
      assertThat(c.userPropertyNames()).containsExactly("bootstrap.servers");
      assertThat(publisher.name()).isEqualTo("kafka");
    }
  }

  @Test
  void userSettingsWinAndTheConfigHoldsNoSecret() {
    TopicRouter custom = m -> "t";
    try (KafkaPublisher publisher = KafkaPublisher.builder(props("acks", "-1", "enable.idempotence", true,
            "delivery.timeout.ms", "3000", "linger.ms", 0L, "compression.type", "lz4"))
        .property("bootstrap.servers", List.of("127.0.0.1:9", "127.0.0.1:10"))
        .topicRouter(custom)
        .build()) {
      KafkaPublisherConfig c = publisher.config();
      assertThat(c.bootstrapServers()).isEqualTo("127.0.0.1:9,127.0.0.1:10");
      assertThat(c.deliveryTimeoutMs()).isEqualTo(3000);
      assertThat(c.lingerMs()).isZero();
      // The request timeout shrinks to fit the shorter delivery timeout.
      assertThat(c.requestTimeoutMs()).isEqualTo(3000);
      assertThat(c.compressionType()).isEqualTo("lz4");
      assertThat(c.topicRouter()).isEqualTo(custom.getClass().getName());
      assertThat(c.userPropertyNames()).contains("sasl.jaas.config", "acks");
      assertThat(c.toString()).doesNotContain(SECRET);
    }
  }
}
