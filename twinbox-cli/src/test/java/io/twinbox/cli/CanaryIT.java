package io.twinbox.cli;

import io.twinbox.testkit.SelfSignedKeyStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.net.URLEncoder;
import java.net.http.HttpClient;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets never leave the process. A distinct canary is planted in every form a secret takes in
 * the sidecar's settings — the database password (a real PostgreSQL role with a password), the
 * admin tokens, the TLS key store password, Kafka's truststore password, private key ({@code
 * ssl.keystore.key}), certificates and JAAS password, JDBC's {@code sslpassword=} and {@code
 * trustStorePassword=} URL parameters (PostgreSQL and MariaDB URLs), a NATS token as URL user-info
 * without a colon ({@code nats://TOKEN@host}) — and the sidecar and the commands run as processes,
 * in working and failing runs (database, NATS and Kafka unreachable or misconfigured, bad settings).
 * No stdout or stderr line, error message, {@code --json} document, {@code /metrics} text,
 * {@code /health} answer, admin page or API answer may contain any canary (issue 22, acceptance 4).
 */
class CanaryIT {
  static PostgresDatabase db;
  static KafkaBroker kafka;
  static String role;
  /** In every canary: no output may contain it at all. */
  static final String SUFFIX = HexFormat.of().formatHex(new SecureRandom().generateSeed(6));
  static final String DB_PASSWORD = "canary-Pw-" + SUFFIX;
  static final String ADMIN_TOKEN = "canary-Admin-" + SUFFIX + "-0123456789abcdef";
  static final String READ_TOKEN = "canary-Read-" + SUFFIX + "-fedcba9876543210";
  static final String KEYSTORE_PASSWORD = "canary-Tls-" + SUFFIX;
  static final String KAFKA_PASSWORD = "canary-Kafka-" + SUFFIX;
  static final String KAFKA_KEY_LINE = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgcanaryKey" + SUFFIX;
  static final String KAFKA_PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----\n" + KAFKA_KEY_LINE + "\n-----END PRIVATE KEY-----";
  static final String KAFKA_CERTIFICATES = "canary-Cert-" + SUFFIX;
  static final String KAFKA_JAAS_PASSWORD = "canary-Jaas-" + SUFFIX;
  static final String JDBC_SSL_PASSWORD = "canary-SslPw-" + SUFFIX;
  static final String JDBC_TRUSTSTORE_PASSWORD = "canary-TrustPw-" + SUFFIX;
  static final String MARIADB_PASSWORD = "canary-MariaPw-" + SUFFIX;
  static final String NATS_TOKEN = "canaryNatsTok" + SUFFIX;

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

  /** A properties file value: line breaks as {@code \n} escapes. */
  private static String property(String value) {
    return value.replace("\\", "\\\\").replace("\n", "\\n");
  }

  @Test
  void noSecretInAnyOutput(@TempDir Path dir) throws Exception {
    List<String> outputs = new ArrayList<>();
    int port = JarProcess.freePort();
    Path keyStore = SelfSignedKeyStore.create(dir, KEYSTORE_PASSWORD);
    String dbUrl = db.jdbcUrl() + "?sslpassword=" + JDBC_SSL_PASSWORD + "&trustStorePassword=" + JDBC_TRUSTSTORE_PASSWORD;
    Path config = dir.resolve("twinbox.properties");
    Files.writeString(config, String.join("\n",
        "db.url=" + dbUrl,
        "db.user=" + role,
        "kafka.bootstrap.servers=" + kafka.bootstrapServers(),
        "kafka.producer.ssl.truststore.password=" + KAFKA_PASSWORD,
        "kafka.producer.ssl.keystore.key=" + property(KAFKA_PRIVATE_KEY),
        "kafka.producer.ssl.truststore.certificates=" + KAFKA_CERTIFICATES,
        "kafka.producer.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"relay\" password=\"" + KAFKA_JAAS_PASSWORD + "\";",
        "http.bind=127.0.0.1",
        "http.port=" + port,
        "http.tls.keystore.path=" + keyStore,
        "http.tls.keystore.password=" + KEYSTORE_PASSWORD,
        "admin.token=" + ADMIN_TOKEN,
        "admin.read.token=" + READ_TOKEN,
        "relay.poll.interval=200ms",
        ""));
    Map<String, String> env = Map.of("TWINBOX_DB_PASSWORD", DB_PASSWORD);
    HttpClient https = HttpClient.newBuilder().sslContext(SelfSignedKeyStore.trusting(keyStore, KEYSTORE_PASSWORD))
        .connectTimeout(Duration.ofSeconds(5)).build();

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
        // A FAILED row whose last_error quotes a connection string, as a careless driver might.
        ps.getConnection().createStatement().executeUpdate("INSERT INTO twinbox_outbox (aggregate_type, aggregate_id,"
            + " type, version, payload, status, attempts, last_error) VALUES ('Canary', 'dead', 'Sung', 1, '{}',"
            + " 'FAILED', 3, 'cannot reach nats://" + NATS_TOKEN + "@10.0.0.1:4222 with password=" + DB_PASSWORD + "')");
      }
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        Cli.Result s = JarProcess.run(dir, env, "status", "--json", "--config", config.toString());
        outputs.add(s.out() + s.err());
        assertThat(s.exitCode()).as(s.toString()).isZero();
        assertThat(s.json().get("pending").asLong()).isZero();
      });
      String base = "https://127.0.0.1:" + port;
      for (String path : List.of("/metrics", "/health", "/", "/admin.js", "/api/status", "/api/events?limit=10")) {
        for (String token : new String[] {null, READ_TOKEN, ADMIN_TOKEN, "wrong-token"}) {
          HttpResponse<String> r = JarProcess.get(https, base + path, token);
          outputs.add(path + " " + r.statusCode() + " " + r.headers().map() + " " + r.body());
        }
      }
      assertThat(JarProcess.get(https, base + "/api/status", null).statusCode()).isEqualTo(401);
      assertThat(JarProcess.get(https, base + "/api/status", READ_TOKEN).statusCode()).isEqualTo(200);
      assertThat(JarProcess.get(https, base + "/metrics", null).body()).contains("twinbox_relay_publish_total");
      HttpResponse<String> events = JarProcess.get(https, base + "/api/events", READ_TOKEN);
      assertThat(events.body()).contains("cannot reach nats://****@10.0.0.1:4222 with password=****");
      String retryAll = "{\"action\":\"skip\",\"aggregateType\":\"Canary\",\"aggregateId\":\"" + ADMIN_TOKEN + "\"}";
      for (String token : new String[] {null, READ_TOKEN, ADMIN_TOKEN}) {
        HttpResponse<String> r = JarProcess.post(https, base + "/api/actions", token, retryAll);
        outputs.add("POST /api/actions " + r.statusCode() + " " + r.headers().map() + " " + r.body());
      }
      assertThat(JarProcess.post(https, base + "/api/actions", READ_TOKEN, retryAll).statusCode()).isEqualTo(403);
      assertThat(JarProcess.post(https, base + "/api/actions", ADMIN_TOKEN, retryAll).statusCode()).isEqualTo(200);
      for (String[] command : new String[][] {{"failed", "list", "--json"}, {"failed", "list"}, {"status"}}) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of("--config", config.toString()));
        Cli.Result r = JarProcess.run(dir, env, args.toArray(String[]::new));
        outputs.add(r.out() + r.err());
        assertThat(r.exitCode()).as(r.toString()).isZero();
      }
      assertThat(relay.terminate()).as(relay.log()).isZero();
      String log = relay.log();
      outputs.add(log);
      assertThat(log).contains("action=skip", "refused=401", "HTTPS on 127.0.0.1")
          .contains("db.password=****", "admin.token=****", "admin.read.token=****", "http.tls.keystore.password=****",
              "kafka.producer.ssl.truststore.password=****", "kafka.producer.ssl.keystore.key=****",
              "kafka.producer.ssl.truststore.certificates=****", "kafka.producer.sasl.jaas.config=****",
              "sslpassword=****&trustStorePassword=****");
    }

    // NATS with a token in the URL, unreachable: the start-up line and the connection errors.
    int natsPort = JarProcess.freePort();
    Map<String, String> nats = new HashMap<>(env);
    nats.put("TWINBOX_TRANSPORT", "nats");
    nats.put("TWINBOX_NATS_URL", "nats://" + NATS_TOKEN + "@127.0.0.1:" + natsPort);
    nats.put("TWINBOX_HTTP_PORT", "0");
    nats.put("TWINBOX_HTTP_TLS_KEYSTORE_PATH", "");
    nats.put("TWINBOX_HTTP_TLS_KEYSTORE_PASSWORD", "");
    runUntilTried(dir, nats, config, outputs, "natsOutage");

    // Kafka over SSL with an unusable private key: the producer cannot even be created.
    Path sslKafka = dir.resolve("ssl-kafka.properties");
    Files.writeString(sslKafka, Files.readString(config)
        + "kafka.producer.security.protocol=SSL\nkafka.producer.ssl.keystore.type=PEM\n");
    Map<String, String> noTls = new HashMap<>(env);
    noTls.put("TWINBOX_HTTP_PORT", "0");
    noTls.put("TWINBOX_HTTP_TLS_KEYSTORE_PATH", "");
    noTls.put("TWINBOX_HTTP_TLS_KEYSTORE_PASSWORD", "");
    runUntilTried(dir, noTls, sslKafka, outputs, "kafkaBadKey");

    // Failing runs: the database unreachable (its URL with secret parameters), on PostgreSQL and MariaDB.
    Map<String, String> unreachable = new HashMap<>(env);
    unreachable.put("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/" + db.name() + "?sslpassword=" + JDBC_SSL_PASSWORD
        + "&trustStorePassword=" + JDBC_TRUSTSTORE_PASSWORD);
    unreachable.put("TWINBOX_DB_CONNECT_TIMEOUT", "2s");
    Cli.Result down = JarProcess.run(dir, unreachable, "status", "--config", config.toString());
    outputs.add(down.out() + down.err());
    assertThat(down.exitCode()).as(down.toString()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(down.err()).contains("sslpassword=****&trustStorePassword=****");
    Cli.Result relayDown = JarProcess.run(dir, unreachable, "relay", "--config", config.toString());
    outputs.add(relayDown.out() + relayDown.err());
    assertThat(relayDown.exitCode()).as(relayDown.toString()).isEqualTo(ExitCodes.UNREACHABLE);

    Map<String, String> maria = Map.of("TWINBOX_DB_URL", "jdbc:mariadb://127.0.0.1:1/x?user=root&password="
        + MARIADB_PASSWORD + "&trustStorePassword=" + JDBC_TRUSTSTORE_PASSWORD, "TWINBOX_DB_CONNECT_TIMEOUT", "1s");
    Cli.Result mariaDown = JarProcess.run(dir, maria, "failed", "list", "--json");
    outputs.add(mariaDown.out() + mariaDown.err());
    assertThat(mariaDown.exitCode()).as(mariaDown.toString()).isEqualTo(ExitCodes.UNREACHABLE);

    Map<String, String> inUrl = Map.of("TWINBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/x?user=" + role
        + "&password=" + DB_PASSWORD, "TWINBOX_DB_CONNECT_TIMEOUT", "1s");
    Cli.Result urlPassword = JarProcess.run(dir, inUrl, "failed", "list");
    outputs.add(urlPassword.out() + urlPassword.err());
    assertThat(urlPassword.exitCode()).as(urlPassword.toString()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(urlPassword.err()).contains("password=****");

    // Bad settings: an unknown key holding a secret, a secret where a number belongs, a wrong key
    // store password, a token too short, an unknown transport.
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

    Map<String, String> wrongKeyStorePassword = new HashMap<>(env);
    wrongKeyStorePassword.put("TWINBOX_HTTP_TLS_KEYSTORE_PASSWORD", "x" + KEYSTORE_PASSWORD);
    Cli.Result tls = JarProcess.run(dir, wrongKeyStorePassword, "relay", "--config", config.toString());
    outputs.add(tls.out() + tls.err());
    assertThat(tls.exitCode()).as(tls.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(tls.err()).contains("http.tls.keystore.path", "cannot be opened with the configured password");

    Map<String, String> shortToken = new HashMap<>(env);
    shortToken.put("TWINBOX_ADMIN_TOKEN", "canary-" + SUFFIX);
    Cli.Result tooShort = JarProcess.run(dir, shortToken, "relay", "--config", config.toString());
    outputs.add(tooShort.out() + tooShort.err());
    assertThat(tooShort.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooShort.err()).contains("admin.token must be 32–1024 characters");

    Map<String, String> wrongTransport = new HashMap<>(env);
    wrongTransport.put("TWINBOX_TRANSPORT", "carrier-pigeon");
    Cli.Result transport = JarProcess.run(dir, wrongTransport, "relay", "--config", config.toString());
    outputs.add(transport.out() + transport.err());
    assertThat(transport.exitCode()).isEqualTo(ExitCodes.USAGE);

    // The canary private key over SSL without its certificate chain: the Kafka client refuses the
    // properties when the producer is built — a configuration error (2), with the key not shown.
    Path sslKey = dir.resolve("ssl-key.properties");
    Files.writeString(sslKey, Files.readString(config) + "kafka.producer.security.protocol=SSL\n"
        + "kafka.producer.ssl.keystore.type=PEM\n");
    Cli.Result keyWithoutChain = JarProcess.run(dir, env, "relay", "--config", sslKey.toString());
    outputs.add(keyWithoutChain.out() + keyWithoutChain.err());
    assertThat(keyWithoutChain.exitCode()).as(keyWithoutChain.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(keyWithoutChain.err()).contains("producer properties refused by the Kafka client");

    Map<String, String> canaries = new LinkedHashMap<>();
    canaries.put("db.password", DB_PASSWORD);
    canaries.put("admin.token", ADMIN_TOKEN);
    canaries.put("admin.read.token", READ_TOKEN);
    canaries.put("http.tls.keystore.password", KEYSTORE_PASSWORD);
    canaries.put("ssl.truststore.password", KAFKA_PASSWORD);
    canaries.put("ssl.keystore.key", KAFKA_PRIVATE_KEY);
    canaries.put("ssl.keystore.key line", KAFKA_KEY_LINE);
    canaries.put("ssl.truststore.certificates", KAFKA_CERTIFICATES);
    canaries.put("sasl.jaas.config password", KAFKA_JAAS_PASSWORD);
    canaries.put("JDBC sslpassword", JDBC_SSL_PASSWORD);
    canaries.put("JDBC trustStorePassword", JDBC_TRUSTSTORE_PASSWORD);
    canaries.put("MariaDB URL password", MARIADB_PASSWORD);
    canaries.put("NATS token", NATS_TOKEN);
    assertThat(outputs).hasSizeGreaterThan(40);
    // Kept for a reader who wants to see what was checked (the canaries are random per run).
    Files.writeString(Path.of("target", "canary-outputs.txt"), String.join("\n=====\n", outputs));
    for (String output : outputs) {
      for (Map.Entry<String, String> canary : canaries.entrySet()) {
        assertThat(output).as(canary.getKey()).doesNotContain(canary.getValue())
            .doesNotContain(URLEncoder.encode(canary.getValue(), StandardCharsets.UTF_8));
      }
      assertThat(output).as("any canary").doesNotContain(SUFFIX);
    }
  }

  /**
   * Runs the relay with one pending row until it has tried to publish it — its broker reported
   * unavailable, or the attempt was counted — or it exited, then stops it and keeps its log.
   */
  private static void runUntilTried(Path dir, Map<String, String> env, Path config, List<String> outputs, String type)
      throws Exception {
    try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString())) {
      insertOne(type);
      await().atMost(Duration.ofSeconds(90)).until(() -> !relay.isAlive() || relay.log().contains("broker unavailable")
          || attempted(type));
      if (relay.isAlive()) {
        relay.terminate();
      }
      outputs.add(relay.log());
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM twinbox_outbox WHERE aggregate_type = '" + type + "'");
    }
  }

  private static boolean attempted(String type) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
         java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM twinbox_outbox WHERE aggregate_type = '" + type
             + "' AND (attempts > 0 OR status <> 'PENDING')")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  private static void insertOne(String type) throws Exception {
    try (Connection c = db.dataSource().getConnection();
         PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_outbox"
             + " (aggregate_type, aggregate_id, type, version, payload) VALUES (?, 'x', 'Sung', 1, '{}')")) {
      ps.setString(1, type);
      ps.executeUpdate();
    }
  }
}
