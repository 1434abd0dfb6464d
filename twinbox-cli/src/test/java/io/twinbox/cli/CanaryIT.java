package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets never leave the process: canary values for the database password (a real PostgreSQL role
 * with a password), the admin tokens and a Kafka producer password are planted in the config file
 * and the environment; the sidecar and the commands run as processes, including failing runs, and
 * no stdout or stderr line, /metrics text, /health or admin response may contain any of them.
 */
class CanaryIT {
  static PostgresDatabase db;
  static KafkaBroker kafka;
  static String role;
  static final String SUFFIX = HexFormat.of().formatHex(new SecureRandom().generateSeed(6));
  static final String DB_PASSWORD = "canary-Pw-" + SUFFIX;
  static final String ADMIN_TOKEN = "canary-Admin-" + SUFFIX;
  static final String READ_TOKEN = "canary-Read-" + SUFFIX;
  static final String KAFKA_PASSWORD = "canary-Kafka-" + SUFFIX;

  @BeforeAll
  static void servers() throws Exception {
    db = PostgresDatabase.create();
    kafka = KafkaBroker.shared();
    role = "canary_role_" + Long.toHexString(System.nanoTime());
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + DB_PASSWORD + "'");
      st.execute("GRANT ALL ON SCHEMA public TO " + role);
      st.execute("GRANT ALL ON DATABASE " + db.name() + " TO " + role);
    }
  }

  @AfterAll
  static void drop() throws Exception {
    if (db != null) {
      String adminUrl = db.jdbcUrl().substring(0, db.jdbcUrl().lastIndexOf('/') + 1) + "postgres";
      db.close();
      try (Connection c = DriverManager.getConnection(adminUrl, db.user(), db.password());
           Statement st = c.createStatement()) {
        st.execute("DROP ROLE IF EXISTS " + role);
      }
    }
  }

  @Test
  void noSecretInAnyOutput(@TempDir Path dir) throws Exception {
    List<String> outputs = new ArrayList<>();
    int port = JarProcess.freePort();
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n",
        "db.url=" + db.jdbcUrl(),
        "db.user=" + role,
        "kafka.bootstrap.servers=" + kafka.bootstrapServers(),
        "kafka.property.ssl.truststore.password=" + KAFKA_PASSWORD,
        "http.bind=127.0.0.1",
        "http.port=" + port,
        "admin.token=" + ADMIN_TOKEN,
        "admin.read.token=" + READ_TOKEN,
        "relay.poll.interval=200ms",
        ""));
    Map<String, String> env = Map.of("TWINBOX_DB_PASSWORD", DB_PASSWORD);

    Cli.Result migrate = JarProcess.run(dir, env, "migrate", "--config", config.toString());
    outputs.add(migrate.out() + migrate.err());
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();

    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString())) {
      try (Connection c = DriverManager.getConnection(db.jdbcUrl(), role, DB_PASSWORD);
           PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_outbox"
               + " (aggregate_type, aggregate_id, type, version, payload) VALUES ('Canary', ?, 'Sung', 1, '{}')")) {
        for (int i = 0; i < 20; i++) {
          ps.setString(1, "c-" + i % 3);
          ps.executeUpdate();
        }
      }
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        Cli.Result s = JarProcess.run(dir, env, "status", "--json", "--config", config.toString());
        outputs.add(s.out() + s.err());
        assertThat(s.exitCode()).as(s.toString()).isZero();
        assertThat(s.json().get("pending").asLong()).isZero();
      });
      String base = "http://127.0.0.1:" + port;
      for (String path : List.of("/metrics", "/health", "/", "/api/status", "/api/events?limit=10")) {
        for (String token : new String[] {null, READ_TOKEN, ADMIN_TOKEN, "wrong-token"}) {
          HttpResponse<String> r = JarProcess.get(base + path, token);
          outputs.add(path + " " + r.statusCode() + " " + r.headers().map() + " " + r.body());
        }
      }
      assertThat(JarProcess.get(base + "/api/status", null).statusCode()).isEqualTo(401);
      assertThat(JarProcess.get(base + "/api/status", READ_TOKEN).statusCode()).isEqualTo(200);
      assertThat(JarProcess.get(base + "/metrics", null).body()).contains("twinbox_relay_publish_total");
      String retryAll = "{\"action\":\"retry\",\"all\":true}";
      for (String token : new String[] {null, READ_TOKEN, ADMIN_TOKEN}) {
        HttpResponse<String> r = JarProcess.post(base + "/api/actions", token, retryAll);
        outputs.add("POST /api/actions " + r.statusCode() + " " + r.headers().map() + " " + r.body());
      }
      assertThat(JarProcess.post(base + "/api/actions", READ_TOKEN, retryAll).statusCode()).isEqualTo(403);
      assertThat(JarProcess.post(base + "/api/actions", ADMIN_TOKEN, retryAll).statusCode()).isEqualTo(200);
      Cli.Result failed = JarProcess.run(dir, env, "failed", "list", "--json", "--config", config.toString());
      outputs.add(failed.out() + failed.err());
      assertThat(failed.exitCode()).isZero();
      assertThat(relay.terminate()).as(relay.log()).isZero();
      String log = relay.log();
      outputs.add(log);
      assertThat(log).contains("action=retry").contains("db.password=****", "admin.token=****", "admin.read.token=****",
          "kafka.property.ssl.truststore.password=****");
    }

    // Failing runs: the database unreachable, the password inside the URL, bad settings.
    Map<String, String> unreachable = new HashMap<>(env);
    unreachable.put("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/" + db.name());
    unreachable.put("TWINBOX_DB_CONNECT_TIMEOUT", "2s");
    Cli.Result down = JarProcess.run(dir, unreachable, "status", "--config", config.toString());
    outputs.add(down.out() + down.err());
    assertThat(down.exitCode()).as(down.toString()).isEqualTo(ExitCodes.UNREACHABLE);
    Cli.Result relayDown = JarProcess.run(dir, unreachable, "relay", "--config", config.toString());
    outputs.add(relayDown.out() + relayDown.err());
    assertThat(relayDown.exitCode()).as(relayDown.toString()).isEqualTo(ExitCodes.UNREACHABLE);

    Map<String, String> inUrl = Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/x?user=" + role
        + "&password=" + DB_PASSWORD, "TWINBOX_DB_CONNECT_TIMEOUT", "1s");
    Cli.Result urlPassword = JarProcess.run(dir, inUrl, "failed", "list");
    outputs.add(urlPassword.out() + urlPassword.err());
    assertThat(urlPassword.exitCode()).as(urlPassword.toString()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(urlPassword.err()).contains("password=****");

    Path bad = dir.resolve("bad.properties");
    Files.writeString(bad, Files.readString(config) + "db.passwrd=" + DB_PASSWORD + "\n");
    Cli.Result badKey = JarProcess.run(dir, env, "relay", "--config", bad.toString());
    outputs.add(badKey.out() + badKey.err());
    assertThat(badKey.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badKey.err()).contains("unknown setting 'db.passwrd'");

    Path badValue = dir.resolve("bad-value.properties");
    Files.writeString(badValue, Files.readString(config) + "relay.workers=" + DB_PASSWORD + "\n");
    Cli.Result badNumber = JarProcess.run(dir, env, "relay", "--config", badValue.toString());
    outputs.add(badNumber.out() + badNumber.err());
    assertThat(badNumber.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badNumber.err()).contains("relay.workers");

    Map<String, String> wrongTransport = new HashMap<>(env);
    wrongTransport.put("TWINBOX_TRANSPORT", "carrier-pigeon");
    Cli.Result transport = JarProcess.run(dir, wrongTransport, "relay", "--config", config.toString());
    outputs.add(transport.out() + transport.err());
    assertThat(transport.exitCode()).isEqualTo(ExitCodes.USAGE);

    List<String> canaries = List.of(DB_PASSWORD, ADMIN_TOKEN, READ_TOKEN, KAFKA_PASSWORD);
    for (String output : outputs) {
      for (String canary : canaries) {
        assertThat(output).doesNotContain(canary).doesNotContain(URLEncoder.encode(canary, StandardCharsets.UTF_8))
            .doesNotContain(SUFFIX);
      }
    }
  }
}
