package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, Medium-6: {@code /health} is unauthenticated, so anyone who reaches the port can call
 * it as often as they like. 50 callers flood it while a service keeps writing; the sidecar must go
 * on publishing and must not let a partition's lease run out: the HTTP side reads through a pool
 * of its own and answers from a verdict cached for a few seconds, so it can never take the
 * connections the lease renewals and claims need.
 *
 * <p>The outbox holds 300,000 FAILED rows of another aggregate type (a long-lived outbox that nobody
 * cleaned up), so that one status read — four counts, one a DISTINCT over the held aggregates —
 * costs a noticeable fraction of a second, as it does in production.
 */
class HealthFloodIT {
  static final int CALLERS = 50;
  static final int ROWS = 300;
  static final int HISTORY = 300_000;
  static PostgresDatabase db;

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void fiftyHealthCallersDoNotStopTheRelay(@TempDir Path dir) throws Exception {
    LocalServers.require("RabbitMQ", "127.0.0.1", 5672);
    Map<String, String> env = new HashMap<>(Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
        "TWINBOX_DB_PASSWORD", db.password()));
    Cli.Result migrate = JarProcess.run(dir, env, "migrate");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload, status,"
          + " attempts, last_error) SELECT 'Archive', 'arc-' || g, 'Archived', 1, '{}', 'FAILED', 10, 'broker said no'"
          + " FROM generate_series(1, " + HISTORY + ") g");
      st.execute("ANALYZE twinbox_outbox");
    }

    String type = "flood" + UUID.randomUUID().toString().substring(0, 8);
    ConnectionFactory f = new ConnectionFactory();
    f.setUri("amqp://guest:guest@127.0.0.1:5672/%2f");
    RabbitTopology topology = RabbitTopology.builder(type).queue(type + ".all").bindingKeys("#").build();
    int port = JarProcess.freePort();
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n",
        "transport=rabbitmq",
        "http.bind=127.0.0.1",
        "http.port=" + port,
        "relay.name=flood-it",
        "relay.poll.interval=100ms",
        "relay.lease.ttl=3s",
        ""));
    env.put("TWINBOX_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2f");
    String base = "http://127.0.0.1:" + port;
    try (com.rabbitmq.client.Connection conn = f.newConnection()) {
      topology.declare(conn);
      try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString());
           Channel ch = conn.createChannel()) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> assertThat(
            JarProcess.get(base + "/metrics", null).body()).as(relay.log())
            .contains("twinbox_relay_partitions{relay=\"flood-it\"} 64.0"));

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS + 2);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
          running.add(callers.submit(() -> {
            while (!stop.get()) {
              try {
                HttpResponse<String> r = JarProcess.get(base + "/health", null);
                (r.statusCode() == 200 || r.statusCode() == 503 ? answered : refused).incrementAndGet();
              } catch (RuntimeException e) {
                refused.incrementAndGet();
              }
            }
            return null;
          }));
        }
        // Leases the relay holds whose expiry has passed on the database clock: a successor could
        // take them over now. Sampled on the test's own connection throughout the flood.
        AtomicInteger lapsed = new AtomicInteger();
        running.add(callers.submit(() -> {
          try (Connection c = db.dataSource().getConnection();
               PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM twinbox_relay_lease"
                   + " WHERE owner IS NOT NULL AND lease_until < clock_timestamp()")) {
            while (!stop.get()) {
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                lapsed.accumulateAndGet(rs.getInt(1), Math::max);
              }
              Thread.sleep(100);
            }
          }
          return null;
        }));
        try {
          // A service writing steadily while the flood goes on.
          try (Connection c = db.dataSource().getConnection();
               PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_outbox"
                   + " (aggregate_type, aggregate_id, type, version, payload) VALUES (?, ?, 'Moved', 1, '{}')")) {
            for (int i = 0; i < ROWS; i++) {
              ps.setString(1, type);
              ps.setString(2, "a-" + i % 7);
              ps.executeUpdate();
              if (i % 10 == 9) {
                Thread.sleep(200);
              }
            }
          }
          // Every row published while the callers are still flooding.
          await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
              assertThat(ch.messageCount(type + ".all")).as(relay.log()).isEqualTo(ROWS));
          long answeredDuring = answered.get();
          assertThat(answeredDuring).as("the flood ran: /health answers during it").isGreaterThanOrEqualTo(CALLERS);
        } finally {
          stop.set(true);
          callers.shutdown();
          assertThat(callers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        for (Future<?> r : running) {
          r.get();
        }
        String metrics = JarProcess.get(base + "/metrics", null).body();
        assertThat(lapsed.get()).as("leases that ran out during the flood\n" + relay.log()).isZero();
        assertThat(metrics).contains("twinbox_relay_publish_total{outcome=\"fenced\",relay=\"flood-it\"} 0.0");
        assertThat(relay.terminate()).as(relay.log()).isZero();
        assertThat(relay.log()).doesNotContain("lost the lease").doesNotContain("lease round failed")
            .doesNotContain("fenced (lease lost)");
        System.out.println("health answers " + answered.get() + ", refused " + refused.get());
      } finally {
        topology.delete(conn);
      }
    }
  }
}
