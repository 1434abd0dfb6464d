package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.twinbox.nats.NatsStreams;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar with {@code transport=rabbitmq} and {@code transport=nats} against the machine's
 * RabbitMQ and NATS JetStream: rows inserted with plain SQL end up stored by the broker (counted in
 * the queue or stream), and SIGTERM stops it with exit code 0.
 */
class OtherBrokersIT {
  static final int ROWS = 40;
  static PostgresDatabase db;

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
    Cli.Result m = new Cli(env()).run("migrate");
    assertThat(m.exitCode()).as(m.toString()).isZero();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  static Map<String, String> env() {
    return Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(), "TWINBOX_DB_PASSWORD", db.password(),
        "TWINBOX_HTTP_PORT", "0", "TWINBOX_HTTP_BIND", "127.0.0.1");
  }

  static void insert(String aggregateType) throws Exception {
    try (java.sql.Connection c = db.dataSource().getConnection();
         PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_outbox"
             + " (aggregate_type, aggregate_id, type, version, payload) VALUES (?, ?, 'Moved', 1, '{\"k\":1}')")) {
      for (int i = 0; i < ROWS; i++) {
        ps.setString(1, aggregateType);
        ps.setString(2, "a-" + i % 5);
        ps.executeUpdate();
      }
    }
  }

  @Test
  void rabbitMq(@TempDir Path dir) throws Exception {
    LocalServers.require("RabbitMQ", "127.0.0.1", 5672);
    String type = "rb" + UUID.randomUUID().toString().substring(0, 8);
    ConnectionFactory f = new ConnectionFactory();
    f.setUri("amqp://guest:guest@127.0.0.1:5672/%2f");
    RabbitTopology topology = RabbitTopology.builder(type).queue(type + ".all").bindingKeys("#").build();
    try (com.rabbitmq.client.Connection conn = f.newConnection()) {
      topology.declare(conn);
      try {
        Map<String, String> env = new HashMap<>(env());
        env.put("TWINBOX_TRANSPORT", "rabbitmq");
        env.put("TWINBOX_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2f");
        try (JarProcess relay = JarProcess.start(dir, env, "relay")) {
          insert(type);
          try (Channel ch = conn.createChannel()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(ch.messageCount(type + ".all")).as(relay.log()).isEqualTo(ROWS));
          }
          assertThat(relay.terminate()).as(relay.log()).isZero();
          assertThat(relay.log()).contains("rabbitmq transport").doesNotContain("guest:guest");
        }
      } finally {
        topology.delete(conn);
      }
    }
  }

  @Test
  void natsJetStream(@TempDir Path dir) throws Exception {
    LocalServers.require("NATS", "127.0.0.1", 4222);
    String type = "nt" + UUID.randomUUID().toString().substring(0, 8);
    try (Connection nats = Nats.connect("nats://127.0.0.1:4222")) {
      NatsStreams.ensure(nats, type, "twinbox." + type + ".>");
      try {
        Map<String, String> env = new HashMap<>(env());
        env.put("TWINBOX_TRANSPORT", "nats");
        env.put("TWINBOX_NATS_URL", "nats://127.0.0.1:4222");
        try (JarProcess relay = JarProcess.start(dir, env, "relay")) {
          insert(type);
          await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
              nats.jetStreamManagement().getStreamInfo(type).getStreamState().getMsgCount()).as(relay.log())
              .isEqualTo(ROWS));
          assertThat(relay.terminate()).as(relay.log()).isZero();
        }
      } finally {
        NatsStreams.delete(nats, type);
      }
    }
  }
}
