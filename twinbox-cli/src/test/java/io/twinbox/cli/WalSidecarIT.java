package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.KafkaDeliveryReader;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivatePostgresCluster;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar in WAL mode ({@code relay.mode=wal} in its config file) as a process of its own, on a
 * private {@code wal_level=logical} cluster and a real Kafka broker: it creates its slot, streams
 * plain-SQL rows to Kafka in per-aggregate order, exports the slot meters; when the slot is dropped
 * under it, {@code /health} turns 503 with the reason, {@code twinbox_relay_slot_lost} turns 1 and
 * the log names the runbook; SIGTERM still stops it with exit code 0.
 */
class WalSidecarIT {
  private static final String PLAIN_INSERT = "INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version,"
      + " payload) VALUES (?, ?, ?, 1, ?::jsonb) RETURNING id, sequence";
  private static PrivatePostgresCluster pg;
  private static HikariDataSource ds;
  private static KafkaBroker kafka;

  @BeforeAll
  static void servers() {
    LocalServers.requireInstalled("PostgreSQL server binaries",
        PrivatePostgresCluster.binaries().orElse(Path.of("/usr/lib/postgresql")), "Debian package postgresql-15");
    pg = PrivatePostgresCluster.builder().setting("wal_level", "logical").setting("fsync", "off")
        .settings(Map.of("max_replication_slots", "4", "max_wal_senders", "4")).start();
    pg.createDatabase("sidecar");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(pg.jdbcUrl("sidecar"));
    hc.setUsername(PrivatePostgresCluster.USER);
    hc.setMaximumPoolSize(4);
    hc.setMinimumIdle(0);
    ds = new HikariDataSource(hc);
    kafka = KafkaBroker.shared();
  }

  @AfterAll
  static void stop() {
    if (ds != null) {
      ds.close();
    }
    if (pg != null) {
      pg.close(); // deletes the cluster: no slot outlives the test
    }
  }

  @Test
  void sidecarInWalModeStreamsAndReportsALostSlot(@TempDir Path dir) throws Exception {
    Map<String, String> env = Map.of("TWINBOX_DB_URL", pg.jdbcUrl("sidecar"), "TWINBOX_DB_USER",
        PrivatePostgresCluster.USER, "TWINBOX_DB_PASSWORD", "", "TWINBOX_KAFKA_BOOTSTRAP_SERVERS",
        kafka.bootstrapServers());
    Cli.Result migrate = JarProcess.run(dir, env, "migrate");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    int port = JarProcess.freePort();
    String aggregateType = "Parcel" + UUID.randomUUID().toString().substring(0, 8);
    String slot = "twinbox_sidecar_it";
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n",
        "http.bind=127.0.0.1",
        "http.port=" + port,
        "relay.name=wal-sidecar-it",
        "relay.mode=wal",
        "relay.wal.slot=" + slot,
        "relay.lease.ttl=3s",
        ""));
    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString())) {
      await("streaming").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> activePid(slot) > 0 || !relay.isAlive());
      assertThat(relay.isAlive()).as(relay.log()).isTrue();
      List<ExpectedEvent> committed = write(aggregateType, 300);
      Set<UUID> ids = new HashSet<>();
      committed.forEach(e -> ids.add(e.id()));
      List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(kafka.bootstrapServers(),
          List.of(aggregateType.toLowerCase(Locale.ROOT)), ids, Duration.ofSeconds(90));
      CheckResult result = DeliveryChecker.check(committed, Set.of(), deliveries);
      assertThat(result.ok()).as(result.describe(10) + "\n" + relay.log()).isTrue();
      assertThat(result.orderViolations()).isZero();
      assertThat(relay.log()).containsPattern("WAL relay \\S+ started on slot " + slot);
      await("slot meters").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        String metrics = JarProcess.get("http://127.0.0.1:" + port + "/metrics", null).body();
        assertThat(metrics)
            .contains("twinbox_relay_publish_total{outcome=\"published\",relay=\"wal-sidecar-it\"} " + committed.size())
            .contains("twinbox_relay_slot_lost{relay=\"wal-sidecar-it\"} 0.0")
            .containsPattern("twinbox_relay_slot_lag_bytes\\{relay=\"wal-sidecar-it\"} [0-9]");
      });
      HttpResponse<String> up = JarProcess.get("http://127.0.0.1:" + port + "/health", null);
      assertThat(up.statusCode()).as(up.body()).isEqualTo(200);

      // The slot is dropped under the running sidecar (its walsender ended first).
      await("slot dropped").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
        exec("SELECT pg_terminate_backend(active_pid, 5000) FROM pg_replication_slots WHERE slot_name = '" + slot
            + "' AND active_pid IS NOT NULL");
        try {
          exec("SELECT pg_drop_replication_slot('" + slot + "')");
          return true;
        } catch (SQLException e) {
          return false; // the relay reattached in between
        }
      });
      await("health DOWN").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
        HttpResponse<String> down = JarProcess.get("http://127.0.0.1:" + port + "/health", null);
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.body()).contains("stopped: replication slot " + slot, "no longer exists");
      });
      assertThat(JarProcess.get("http://127.0.0.1:" + port + "/metrics", null).body())
          .contains("twinbox_relay_slot_lost{relay=\"wal-sidecar-it\"} 1.0");
      assertThat(relay.log()).contains("ERROR", "STOPPED STREAMING", "Runbook: the WAL slot was lost");
      assertThat(count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
          .as("no new slot past the unread WAL").isZero();
      assertThat(relay.isAlive()).as("the sidecar stays up to report it").isTrue();

      int exit = relay.terminate();
      assertThat(exit).as(relay.log()).isZero();
    }
  }

  /** Plain-SQL rows over a few aggregates, each in its own transaction. */
  private static List<ExpectedEvent> write(String aggregateType, int rows) throws SQLException {
    List<ExpectedEvent> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(PLAIN_INSERT)) {
      for (int i = 0; i < rows; i++) {
        String aggregateId = "p-" + i % 10;
        ps.setString(1, aggregateType);
        ps.setString(2, aggregateId);
        ps.setString(3, "ParcelMoved");
        ps.setString(4, "{\"n\":" + i + "}");
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          out.add(ExpectedEvent.ordered(rs.getObject(1, UUID.class), aggregateType, aggregateId, rs.getLong(2)));
        }
      }
    }
    return out;
  }

  private static int activePid(String slot) {
    return (int) count("SELECT COALESCE(max(active_pid), 0) FROM pg_replication_slots WHERE slot_name = '" + slot
        + "'");
  }

  private static long count(String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void exec(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
