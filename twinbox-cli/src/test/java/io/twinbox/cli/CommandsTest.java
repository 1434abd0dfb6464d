package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testing.RecordingTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operator command against a real PostgreSQL database holding a FAILED event: text and JSON
 * output, and exit codes.
 */
class CommandsTest {
  static PostgresDatabase db;
  static Cli cli;

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
    cli = new Cli(Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
        "TWINBOX_DB_PASSWORD", db.password()));
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  private static UUID write(Outbox outbox, String type, String aggregateId) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder(type, 1).aggregate("Order", aggregateId).payload("{}").build());
      c.commit();
      return id;
    }
  }

  @Test
  void everyCommandOnAFailedEvent() throws Exception {
    Cli.Result migrate = cli.run("migrate", "--json");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    assertThat(migrate.json().get("migrated").asBoolean()).isTrue();
    assertThat(migrate.json().get("dialect").asText()).containsIgnoringCase("postgres");
    assertThat(cli.run("migrate").out()).contains("Schema is up to date");
    Cli.Result on = cli.run("migrate", "--commit-notifications", "on", "--json");
    assertThat(on.json().get("commitNotifications").asBoolean()).as(on.toString()).isTrue();
    assertThat(cli.run("migrate", "--commit-notifications", "off").out()).contains("Commit notifications are off.");
    assertThat(cli.run("migrate", "--commit-notifications", "maybe").exitCode()).isEqualTo(ExitCodes.USAGE);

    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    UUID poison = write(outbox, "Poison", "a");
    UUID behind = write(outbox, "OrderCreated", "a");
    UUID other = write(outbox, "OrderCreated", "b");
    Set<UUID> poisoned = ConcurrentHashMap.newKeySet();
    poisoned.add(poison);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> poisoned.contains(m.id()), PublishOutcome.rejected("record too large"));
    try (Relay relay = Relay.builder(store, t).pollInterval(Duration.ofMillis(50)).leaseTtl(Duration.ofSeconds(3))
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> store.status().failed() == 1
          && t.acked().stream().anyMatch(m -> m.id().equals(other)) && store.status().leaseOwners().size() == 1);

      // status
      Cli.Result status = cli.run("status", "--json");
      assertThat(status.exitCode()).as(status.toString()).isZero();
      JsonNode s = status.json();
      assertThat(s.get("failed").asLong()).isEqualTo(1);
      assertThat(s.get("pending").asLong()).isEqualTo(1);
      assertThat(s.get("heldAggregates").asLong()).isEqualTo(1);
      assertThat(s.get("oldestPendingAgeSeconds").asDouble()).isGreaterThanOrEqualTo(0);
      assertThat(s.get("leaseOwners").get(relay.nodeId()).asInt()).isEqualTo(64);
      assertThat(s.get("unownedPartitions").asInt()).isZero();
      Cli.Result text = cli.run("status");
      assertThat(text.out()).contains("failed", "held aggregates", relay.nodeId());
      Cli.Result failIfFailed = cli.run("status", "--fail-if-failed");
      assertThat(failIfFailed.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(failIfFailed.out()).contains("CHECK FAILED: 1 FAILED event(s)");
      assertThat(cli.run("status", "--fail-if-pending-older-than", "1h").exitCode()).isZero();
      Thread.sleep(1100);
      Cli.Result tooOld = cli.run("status", "--json", "--fail-if-pending-older-than", "1s");
      assertThat(tooOld.exitCode()).as(tooOld.toString()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(tooOld.json().get("checksFailed").get(0).asText()).contains("oldest pending event");

      // failed list
      Cli.Result list = cli.run("failed", "list", "--json");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.json()).hasSize(1);
      JsonNode e = list.json().get(0);
      assertThat(e.get("id").asText()).isEqualTo(poison.toString());
      assertThat(e.get("status").asText()).isEqualTo("FAILED");
      assertThat(e.get("aggregateType").asText()).isEqualTo("Order");
      assertThat(e.get("aggregateId").asText()).isEqualTo("a");
      assertThat(e.get("sequence").asLong()).isEqualTo(1);
      assertThat(e.get("lastError").asText()).contains("record too large");
      assertThat(e.has("payload")).isFalse();
      assertThat(cli.run("failed", "list", "--json", "--type", "OrderCreated").json()).isEmpty();
      assertThat(cli.run("failed", "list", "--json", "--aggregate-type", "Order", "--aggregate-id", "a").json())
          .hasSize(1);
      assertThat(cli.run("failed", "list", "--json", "--aggregate-id", "b").json()).isEmpty();
      Cli.Result table = cli.run("failed", "list", "--fail-if-any");
      assertThat(table.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(table.out()).contains(poison.toString(), "FAILED", "Order:a", "record too large", "1 event(s)");
      assertThat(cli.run("failed", "list", "--limit", "0").exitCode()).isEqualTo(ExitCodes.USAGE);

      // retry: nothing matched, then the poison (fails again: still rejected)
      Cli.Result none = cli.run("retry", "--id", UUID.randomUUID().toString(), "--json");
      assertThat(none.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(none.json().get("retried").asInt()).isZero();
      Cli.Result retry = cli.run("retry", "--id", poison.toString(), "--json");
      assertThat(retry.exitCode()).as(retry.toString()).isZero();
      assertThat(retry.json().get("retried").asInt()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> t.attempts().stream().filter(m -> m.id().equals(poison))
          .count() >= 2 && store.status().failed() == 1);
      assertThat(t.acked()).noneMatch(m -> m.id().equals(behind));

      // skip the aggregate: the event behind it is published
      Cli.Result skip = cli.run("skip", "--aggregate", "Order:a");
      assertThat(skip.exitCode()).as(skip.toString()).isZero();
      assertThat(skip.out()).contains("Skipped 1 FAILED event(s) (aggregate Order:a)");
      await().atMost(Duration.ofSeconds(30)).until(() -> t.acked().stream().anyMatch(m -> m.id().equals(behind)));
      Cli.Result allFailed = cli.run("retry", "--all-failed", "--json");
      assertThat(allFailed.exitCode()).as("nothing left is not an error").isZero();
      assertThat(allFailed.json().get("retried").asInt()).isZero();
      assertThat(cli.run("skip", "--aggregate", "Order:a").exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
    }

    // selectors: exactly one, well-formed
    assertThat(cli.run("retry").exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.run("retry", "--all-failed", "--id", poison.toString()).exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.run("skip", "--aggregate", "Order").exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.run("retry", "--id", "not-a-uuid").exitCode()).isEqualTo(ExitCodes.USAGE);
  }

  /**
   * Issue 22 (Low): ids, types and {@code last_error} come from other services and from brokers;
   * an ESC or BEL in them must reach the terminal as visible text, never as a control sequence
   * (screen clear, window title, fake output). {@code --json} stays exact JSON of the stored text.
   */
  @Test
  void failedListShowsControlCharactersVisibly() throws Exception {
    assertThat(cli.run("migrate").exitCode()).isZero();
    String aggregateId = "id\u001b[2J\u0007";
    String type = "Type\u001b]0;pwned\u0007";
    String lastError = "boom\u001b[31mred\r\n$ fake prompt \u202e";
    // The schema refuses control characters at INSERT (V5's plain-SQL checks), so the row is spoiled
    // afterwards: rows older than those checks, or changed by hand, can still hold them.
    try (Connection c = db.dataSource().getConnection();
         java.sql.Statement st = c.createStatement();
         java.sql.PreparedStatement ps = c.prepareStatement("UPDATE twinbox_outbox SET aggregate_id = ?, type = ?,"
             + " status = 'FAILED', attempts = 3, last_error = ? WHERE aggregate_type = 'Esc'")) {
      st.executeUpdate("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload)"
          + " VALUES ('Esc', 'clean', 'Clean', 1, '{}')");
      ps.setString(1, aggregateId);
      ps.setString(2, type);
      ps.setString(3, lastError);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    try {
      Cli.Result table = cli.run("failed", "list", "--aggregate-type", "Esc");
      assertThat(table.exitCode()).as(table.toString()).isZero();
      assertThat(table.out()).contains("Esc:id\\x1b[2J\\x07", "Type\\x1b]0;pwned\\x07",
          "boom\\x1b[31mred\\r\\n$ fake prompt \\u202e");
      assertThat(table.out().chars().filter(ch -> ch != '\n' && (ch < 0x20 || ch == 0x7f || ch == 0x202e)))
          .as("no control character but the line ends").isEmpty();

      Cli.Result json = cli.run("failed", "list", "--json", "--aggregate-type", "Esc");
      assertThat(json.out().chars().filter(ch -> ch == 0x1b || ch == 0x07)).as("JSON escapes them").isEmpty();
      JsonNode e = json.json().get(0);
      assertThat(e.get("aggregateId").asText()).isEqualTo(aggregateId);
      assertThat(e.get("type").asText()).isEqualTo(type);
      assertThat(e.get("lastError").asText()).isEqualTo(lastError);
    } finally {
      try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
        st.executeUpdate("DELETE FROM twinbox_outbox WHERE aggregate_type = 'Esc'");
      }
    }
  }

  /**
   * Issue 22, Medium-7: the sidecar refuses loose HTTP settings before it connects to anything,
   * naming the setting and the limit and never the secret.
   */
  @Test
  void relayRefusesLooseHttpSettingsNamingThem() {
    String token = "a-token-that-is-long-enough-0123456789";
    Cli.Result shortToken = new Cli(Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/x",
        "TWINBOX_ADMIN_TOKEN", "short-canary")).run("relay");
    assertThat(shortToken.exitCode()).as(shortToken.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(shortToken.err()).contains("admin.token must be 32–1024 characters", "was 12")
        .doesNotContain("short-canary");

    Cli.Result open = new Cli(Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/x",
        "TWINBOX_ADMIN_READ_TOKEN", token, "TWINBOX_HTTP_BIND", "0.0.0.0")).run("relay");
    assertThat(open.exitCode()).as(open.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(open.err()).contains("http.bind=0.0.0.0 is not a loopback address", "http.tls.keystore.path",
        "http.tls.keystore.password", "http.allow.plaintext=true").doesNotContain(token);

    Cli.Result half = new Cli(Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/x",
        "TWINBOX_HTTP_TLS_KEYSTORE_PATH", "/nonexistent.p12")).run("relay");
    assertThat(half.exitCode()).as(half.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(half.err()).contains("http.tls.keystore.path and http.tls.keystore.password go together");
  }

  @Test
  void purgeDeletesOldPublishedRowsInBatches() throws Exception {
    assertThat(cli.run("migrate").exitCode()).isZero();
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    for (int i = 0; i < 7; i++) {
      write(outbox, "OrderCreated", "purge-" + i);
    }
    RecordingTransport t = RecordingTransport.acking();
    try (Relay relay = Relay.builder(store, t).completionMode(CompletionMode.MARK).pollInterval(Duration.ofMillis(50))
        .leaseTtl(Duration.ofSeconds(3)).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> t.acked().size() >= 7 && store.status().pending() == 0);
    }
    Cli.Result young = cli.run("purge", "--older-than", "1d", "--json");
    assertThat(young.exitCode()).as(young.toString()).isZero();
    assertThat(young.json().get("purged").asLong()).isZero();
    Thread.sleep(20);
    Cli.Result purge = cli.run("purge", "--older-than", "1ms", "--batch", "2", "--json");
    assertThat(purge.exitCode()).as(purge.toString()).isZero();
    assertThat(purge.json().get("purged").asLong()).isGreaterThanOrEqualTo(7);
    assertThat(cli.run("purge", "--older-than", "1ms").out()).contains("Purged 0 PUBLISHED event(s)");
    assertThat(cli.run("purge", "--older-than", "soon").exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.run("purge").exitCode()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void purgeArchiveMovesOldPublishedRowsToTheArchive() throws Exception {
    assertThat(cli.run("migrate").exitCode()).isZero();
    assertThat(cli.run("migrate").exitCode()).as("migrate stays idempotent with the archive").isZero();
    try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox; DELETE FROM twinbox_outbox_archive");
    }
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    for (int i = 0; i < 5; i++) {
      write(outbox, "OrderCreated", "archive-" + i);
    }
    try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
      st.execute("UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = clock_timestamp() - interval '2 days'");
    }
    write(outbox, "OrderCreated", "archive-pending");
    assertThat(cli.run("purge", "--older-than", "1d", "--archive", "--inbox").exitCode()).isEqualTo(ExitCodes.USAGE);
    Cli.Result moved = cli.run("purge", "--older-than", "1d", "--archive", "--batch", "2", "--json");
    assertThat(moved.exitCode()).as(moved.toString()).isZero();
    assertThat(moved.json().get("purged").asLong()).isEqualTo(5);
    assertThat(moved.json().get("archiveRows").asLong()).isEqualTo(5);
    assertThat(store.countArchived()).isEqualTo(5);
    assertThat(store.archived("Order", null, 100)).hasSize(5);
    assertThat(store.status().pending()).as("the pending row stays").isEqualTo(1);
    assertThat(cli.run("purge", "--older-than", "1d", "--archive").out())
        .contains("Archived 0 PUBLISHED event(s)", "the archive holds 5");
  }

  @Test
  void purgeInboxDeletesOldRecordsKeepsParkedOnesAndRefusesAnAgeBelowTheHorizon() throws Exception {
    assertThat(cli.run("migrate").exitCode()).isZero();
    try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_inbox; DELETE FROM twinbox_inbox_parked");
      st.execute("INSERT INTO twinbox_inbox (consumer, message_id, payload_hash, received_at) SELECT 'billing',"
          + " 'old-' || g, repeat('0', 64), clock_timestamp() - interval '100 days' FROM generate_series(1, 7) g");
      st.execute("INSERT INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES ('billing', 'new', repeat('0', 64))");
      st.execute("INSERT INTO twinbox_inbox_parked (consumer, message_id, reason, attempts, parked_at) VALUES"
          + " ('billing', 'parked', 'kept failing', 5, clock_timestamp() - interval '100 days')");
    }
    Cli.Result tooShort = cli.run("purge", "--inbox", "--older-than", "2d");
    assertThat(tooShort.exitCode()).as(tooShort.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooShort.err()).contains("--older-than (2d) must be at least retention.redelivery.horizon (8d)")
        .contains("processed twice").contains("--force");
    assertThat(cli.run("purge", "--older-than", "2d", "--force").exitCode()).as("--force is for --inbox")
        .isEqualTo(ExitCodes.USAGE);

    Cli.Result purge = cli.run("purge", "--inbox", "--older-than", "90d", "--batch", "3", "--json");
    assertThat(purge.exitCode()).as(purge.toString()).isZero();
    assertThat(purge.json().get("purged").asLong()).isEqualTo(7);
    assertThat(purge.json().get("kind").asText()).isEqualTo("inbox");
    Cli.Result forced = cli.run("purge", "--inbox", "--older-than", "1ms", "--force");
    assertThat(forced.exitCode()).as(forced.toString()).isZero();
    assertThat(forced.out()).contains("Purged 1 inbox record(s)");
    try (Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM twinbox_inbox),"
            + " (SELECT count(*) FROM twinbox_inbox_parked)")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
      assertThat(rs.getLong(2)).as("parked messages are never purged").isEqualTo(1);
    }
  }

  @Test
  void configurationAndConnectionErrorsHaveTheirOwnExitCodes(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, "db.url=" + db.jdbcUrl() + "\ndb.uesr=postgres\n");
    Cli.Result unknownKey = new Cli(Map.of()).run("status", "--config", config.toString());
    assertThat(unknownKey.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknownKey.err()).contains("unknown setting 'db.uesr'");

    Cli.Result unknownEnv = new Cli(Map.of("TWINBOX_DB_URLL", "x")).run("status");
    assertThat(unknownEnv.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknownEnv.err()).contains("TWINBOX_DB_URLL");

    Cli.Result missing = new Cli(Map.of()).run("status");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("db.url is required", "TWINBOX_DB_URL");

    Cli.Result noFile = new Cli(Map.of()).run("status", "--config", dir.resolve("nope.properties").toString());
    assertThat(noFile.exitCode()).isEqualTo(ExitCodes.USAGE);

    Cli.Result badUrl = new Cli(Map.of("TWINBOX_DB_URL", "postgres://x")).run("status");
    assertThat(badUrl.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badUrl.err()).contains("db.url must be a jdbc:postgresql:");

    Cli.Result down = new Cli(Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/nothing",
        "TWINBOX_DB_CONNECT_TIMEOUT", "2s")).run("status");
    assertThat(down.exitCode()).as(down.toString()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(down.err()).contains("cannot connect to the database at jdbc:postgresql://127.0.0.1:1/nothing");

    try (PostgresDatabase empty = PostgresDatabase.create()) {
      Cli.Result notMigrated = new Cli(Map.of("TWINBOX_DB_URL", empty.jdbcUrl(), "TWINBOX_DB_USER", empty.user()))
          .run("failed", "list");
      assertThat(notMigrated.exitCode()).as(notMigrated.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(notMigrated.err()).contains("twinbox migrate");
      for (String command : new String[] {"status", "retry --all-failed", "skip --all-failed", "purge --older-than 1d"}) {
        Cli.Result r = new Cli(Map.of("TWINBOX_DB_URL", empty.jdbcUrl(), "TWINBOX_DB_USER", empty.user()))
            .run(command.split(" "));
        assertThat(r.exitCode()).as(command + ": " + r).isEqualTo(ExitCodes.USAGE);
      }
    }

    Cli.Result unknownOption = cli.run("status", "--frobnicate");
    assertThat(unknownOption.exitCode()).isEqualTo(ExitCodes.USAGE);

    Cli.Result help = cli.run("--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("relay", "migrate", "status", "failed", "retry", "skip", "purge", "demo",
        "Exit codes", "cannot be reached");
    assertThat(cli.run("relay", "--help").out()).contains("db.password / TWINBOX_DB_PASSWORD",
        "kafka.bootstrap.servers / TWINBOX_KAFKA_BOOTSTRAP_SERVERS", "http.port / TWINBOX_HTTP_PORT (8080)");
  }
}
