package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.KafkaDeliveryReader;
import io.twinbox.testkit.PostgresDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar acceptance: {@code java -jar twinbox.jar relay} as a process of its own against a
 * real PostgreSQL and a real Kafka broker, publishing rows that a service in another language
 * inserted with plain SQL (no Twinbox library: the schema's triggers assign sequence and
 * partition). Every committed row must reach Kafka in per-aggregate order, no rolled-back row may,
 * /metrics and /health must answer, and SIGTERM must stop it with exit code 0.
 */
class SidecarIT {
  static final int WRITERS = 4;
  static final int ROWS_PER_WRITER = 150;
  static PostgresDatabase db;
  static KafkaBroker kafka;

  @BeforeAll
  static void servers() {
    db = PostgresDatabase.create();
    kafka = KafkaBroker.shared();
  }

  @AfterAll
  static void stop() {
    if (db != null) {
      db.close();
    }
  }

  /** What a Python or Go service does: one INSERT per event, in its own transaction. */
  static final String PLAIN_INSERT = "INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload)"
      + " VALUES (?, ?, ?, 1, ?::jsonb) RETURNING id, sequence";

  @Test
  void relaysPlainSqlRowsToKafka(@TempDir Path dir) throws Exception {
    Map<String, String> env = Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
        "TWINBOX_DB_PASSWORD", db.password(), "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    Cli.Result migrate = JarProcess.run(dir, env, "migrate");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();

    int port = JarProcess.freePort();
    String aggregateType = "Shipment" + UUID.randomUUID().toString().substring(0, 8);
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n",
        "# the sidecar's settings; secrets come from the environment",
        "http.bind=127.0.0.1",
        "http.port=" + port,
        "relay.name=sidecar-it",
        "relay.poll.interval=200ms",
        "relay.lease.ttl=3s",
        ""));
    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString())) {
      List<ExpectedEvent> committed = Collections.synchronizedList(new ArrayList<>());
      Set<UUID> rolledBack = Collections.synchronizedSet(new HashSet<>());
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        done.add(writers.submit(() -> {
          write(writer, aggregateType, committed, rolledBack);
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      writers.shutdown();
      assertThat(committed).hasSize(WRITERS * ROWS_PER_WRITER * 9 / 10);
      assertThat(relay.isAlive()).as(relay.log()).isTrue();

      Set<UUID> ids = new HashSet<>();
      committed.forEach(e -> ids.add(e.id()));
      String topic = aggregateType.toLowerCase(java.util.Locale.ROOT);
      List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(kafka.bootstrapServers(), List.of(topic), ids,
          Duration.ofSeconds(90));
      CheckResult result = DeliveryChecker.check(committed, rolledBack, deliveries);
      assertThat(result.ok()).as(result.describe(10) + "\n" + relay.log()).isTrue();
      assertThat(result.lost()).isZero();
      assertThat(result.phantom()).isZero();
      assertThat(result.orderViolations()).isZero();

      // Metrics and health, as Prometheus and a Kubernetes probe see them.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        HttpResponse<String> metrics = JarProcess.get("http://127.0.0.1:" + port + "/metrics", null);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
            .contains("twinbox_relay_publish_total{outcome=\"published\",relay=\"sidecar-it\"} " + committed.size())
            .contains("twinbox_outbox_pending 0.0")
            .contains("twinbox_relay_partitions{relay=\"sidecar-it\"} 64.0")
            .contains("twinbox_relay_publish_latency_seconds_count");
      });
      HttpResponse<String> health = JarProcess.get("http://127.0.0.1:" + port + "/health", null);
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(health.body()).contains("UP");

      // The operator's view while it runs: one relay holding all 64 partitions.
      Cli.Result status = JarProcess.run(dir, env, "status", "--json");
      assertThat(status.exitCode()).as(status.toString()).isZero();
      assertThat(status.json().get("leaseOwners").size()).isEqualTo(1);
      assertThat(status.json().get("pending").asLong()).isZero();

      int exit = relay.terminate();
      assertThat(exit).as(relay.log()).isZero();
      assertThat(relay.log()).contains("twinbox relay stopped");
      Cli.Result after = JarProcess.run(dir, env, "status", "--json");
      assertThat(after.json().get("leaseOwners").size()).as("leases released on SIGTERM").isZero();
    }
  }

  /** Writes {@link #ROWS_PER_WRITER} rows, one in ten rolled back, over a few shared aggregates. */
  private static void write(int writer, String aggregateType, List<ExpectedEvent> committed, Set<UUID> rolledBack)
      throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < ROWS_PER_WRITER; i++) {
        String aggregateId = i % 15 == 14 ? null : "s-" + (i * 7 + writer) % 12; // shared across writers
        UUID id;
        long sequence;
        try (PreparedStatement ps = c.prepareStatement(PLAIN_INSERT)) {
          ps.setString(1, aggregateType);
          ps.setString(2, aggregateId);
          ps.setString(3, "ShipmentUpdated");
          ps.setString(4, "{\"writer\":" + writer + ",\"n\":" + i + "}");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getObject(1, UUID.class);
            sequence = rs.getLong(2);
          }
        }
        if (i % 10 == 3) {
          c.rollback();
          rolledBack.add(id);
        } else {
          c.commit();
          committed.add(aggregateId == null ? ExpectedEvent.unordered(id, aggregateType)
              : ExpectedEvent.ordered(id, aggregateType, aggregateId, sequence));
        }
      }
    }
  }
}
