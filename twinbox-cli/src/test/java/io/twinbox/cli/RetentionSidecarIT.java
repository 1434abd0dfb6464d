package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Retention;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.testkit.contract.Sql;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, acceptance 2 on the sidecar: {@code relay} with {@code retention.enabled=true} and a
 * 1-second age deletes PUBLISHED rows and inbox records in batches while plain-SQL writers and its
 * relay run, keeps a FAILED row and a parked message, shows its progress on /metrics, and skips its
 * rounds while another runner holds the database lock. A too-short inbox age stops the start with
 * a message naming the key and the minimum (acceptance 3).
 */
class RetentionSidecarIT {
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

  static long count(String sql) throws Exception {
    return Sql.count(db.dataSource(), sql);
  }

  static void exec(String sql) throws Exception {
    Sql.exec(db.dataSource(), sql);
  }

  static double metric(String body, String line) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(line) + " ([0-9.E+-]+)$").matcher(body);
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  @Test
  void theSidecarRunsRetentionInBatchesWhileItRelays(@TempDir Path dir) throws Exception {
    Map<String, String> env = Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
        "TWINBOX_DB_PASSWORD", db.password(), "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    Cli.Result migrate = JarProcess.run(dir, env, "migrate");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    String aggregateType = "Retained" + UUID.randomUUID().toString().substring(0, 8);
    exec("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload, status)"
        + " VALUES ('" + aggregateType + "', 'kept', 'T', 1, '{}', 'FAILED')");
    exec("INSERT INTO twinbox_inbox_parked (consumer, message_id, reason, attempts) VALUES ('billing', 'parked-1',"
        + " 'handler kept failing', 5)");

    // Too short: refused before anything runs, naming the key and the minimum.
    Path tooShort = dir.resolve("short.properties");
    Files.writeString(tooShort, "retention.enabled=true\nretention.inbox.age=1d\nhttp.enabled=false\n");
    Cli.Result refused = JarProcess.run(dir, env, "relay", "--config", tooShort.toString());
    assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(refused.err()).contains("retention.inbox.age (1d) must be at least retention.redelivery.horizon (8d)")
        .contains("processed twice");

    int port = JarProcess.freePort();
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n", "http.bind=127.0.0.1", "http.port=" + port,
        "relay.name=retention-it", "relay.poll.interval=100ms", "relay.lease.ttl=3s",
        "relay.completion.mode=MARK", "retention.enabled=true", "retention.published.age=1s",
        "retention.inbox.age=1s", "retention.redelivery.horizon=1s", "retention.batch.size=50",
        "retention.pause=5ms", "retention.period=300ms", ""));
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger written = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString())) {
      Thread writer = new Thread(() -> {
        try (Connection c = db.dataSource().getConnection()) {
          c.setAutoCommit(false);
          for (int i = 0; writing.get(); i++) {
            try (PreparedStatement out = c.prepareStatement("INSERT INTO twinbox_outbox (aggregate_type,"
                + " aggregate_id, type, version, payload) VALUES (?, ?, 'T', 1, '{}'::jsonb)");
                PreparedStatement in = c.prepareStatement(
                    "INSERT INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES ('billing', ?, ?)")) {
              for (int j = 0; j < 20; j++) {
                out.setString(1, aggregateType);
                out.setString(2, "a-" + j % 7);
                out.addBatch();
                in.setString(1, "m-" + i + "-" + j);
                in.setString(2, "0".repeat(64));
                in.addBatch();
              }
              out.executeBatch();
              in.executeBatch();
            }
            c.commit();
            written.addAndGet(20);
            Thread.sleep(20);
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      });
      writer.start();
      String url = "http://127.0.0.1:" + port + "/metrics";
      await().atMost(Duration.ofSeconds(120)).ignoreExceptions().untilAsserted(() -> {
        String body = JarProcess.get(url, null).body();
        assertThat(metric(body, "twinbox_retention_deleted_total{kind=\"published.events\"}")).isGreaterThan(300);
        assertThat(metric(body, "twinbox_retention_deleted_total{kind=\"inbox.records\"}")).isGreaterThan(300);
        assertThat(metric(body, "twinbox_retention_rounds_total{outcome=\"completed\"}")).isGreaterThan(2);
      });
      assertThat(relay.isAlive()).as(relay.log()).isTrue();

      // Another runner holds the lock: the sidecar's rounds are skipped and delete nothing.
      JdbcStore other = JdbcStore.builder(db.dataSource()).build();
      AtomicReference<ExclusiveLock.Held> taken = new AtomicReference<>();
      // Taken between two of the sidecar's rounds (while one runs, it holds the lock itself).
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
          .until(() -> other.tryLock(Retention.LOCK_NAME).map(h -> { taken.set(h); return true; }).orElse(false));
      try (ExclusiveLock.Held held = taken.get()) {
        double skippedBefore = metric(JarProcess.get(url, null).body(), "twinbox_retention_rounds_total{outcome=\"skipped\"}");
        Thread.sleep(700); // any round under way ends, the next ones find the lock held
        String before = JarProcess.get(url, null).body();
        double deletedBefore = metric(before, "twinbox_retention_deleted_total{kind=\"published.events\"}");
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> metric(JarProcess.get(url, null).body(),
            "twinbox_retention_rounds_total{outcome=\"skipped\"}") >= skippedBefore + 3);
        assertThat(metric(JarProcess.get(url, null).body(), "twinbox_retention_deleted_total{kind=\"published.events\"}"))
            .as("nothing deleted while another runner holds the lock").isEqualTo(deletedBefore);
      }
      writing.set(false);
      writer.join();
      assertThat(errors).isEmpty();
      await().atMost(Duration.ofSeconds(120)).until(() -> count(
          "SELECT count(*) FROM twinbox_outbox WHERE status <> 'FAILED'") == 0
          && count("SELECT count(*) FROM twinbox_inbox WHERE message_id LIKE 'm-%'") == 0);
      String body = JarProcess.get(url, null).body();
      assertThat(metric(body, "twinbox_retention_deleted_total{kind=\"published.events\"}"))
          .as("every written row published, then deleted").isEqualTo(written.get());
      assertThat(metric(body, "twinbox_relay_publish_total{outcome=\"published\",relay=\"retention-it\"}"))
          .isEqualTo(written.get());
      assertThat(body).contains("twinbox_retention_last_round_duration_seconds");
      assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'")).as("FAILED stays").isEqualTo(1);
      assertThat(count("SELECT count(*) FROM twinbox_inbox_parked")).as("the parked message stays").isEqualTo(1);
      assertThat(relay.terminate()).as(relay.log()).isZero();
      assertThat(relay.log()).contains("twinbox retention scheduled every 300ms");
    }
  }
}
