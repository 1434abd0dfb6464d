package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.TwinboxAdmin;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.micrometer.InboxMetrics;
import io.twinbox.micrometer.ParkedMetrics;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Grafana dashboard and alert rules, proven on live metrics: a real Prometheus server
 * scrapes (every second) a running sidecar ({@code java -jar twinbox.jar relay}) and an inbox
 * consumer in this JVM (its {@link PrometheusMeterRegistry} served by the JDK's HTTP server; the CLI
 * has no consumer command), while plain-SQL rows keep flowing through PostgreSQL and Kafka. The
 * state the panels show is brought about for real: one undecodable row in FAILED holding its
 * aggregate, and messages the consumer's handler refuses, parked.
 *
 * <p>Every panel target's {@code expr} in {@code ops/grafana/twinbox-dashboard.json} (template
 * variables {@code $relay}/{@code $consumer} replaced by {@code .*}, {@code $__rate_interval} by
 * {@code 10s}) and the series query of each template variable must return a non-empty result
 * through {@code /api/v1/query}, and a number, not NaN: a NaN is accepted only for the WAL panels,
 * whose gauges a polling relay reports as NaN (the series exists; its values are proven in
 * WalSidecarIT). Alert rules are conditions, empty while all is well, so they are checked in two
 * ways: Prometheus loads {@code ops/prometheus/twinbox-alerts.yml} (every rule listed by {@code
 * /api/v1/rules}, evaluated with health {@code ok}), and every vector selector inside each rule's
 * expression (metric name with its label matchers, e.g. {@code
 * twinbox_inbox_messages_total{outcome="parked"}}) must select data. A renamed metric or label
 * value thus fails the build, naming the panel or rule and its query.
 */
class DashboardIT {
  private static final Path DASHBOARD = Path.of("..", "ops", "grafana", "twinbox-dashboard.json");
  private static final Path RULES = Path.of("..", "ops", "prometheus", "twinbox-alerts.yml");
  private static final Pattern SELECTOR = Pattern.compile("twinbox_[a-z_]+(\\{[^}]*})?");
  private static final String INSERT = "INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version,"
      + " payload) VALUES (?, ?, 'ParcelMoved', 1, ?::jsonb)";
  /** A row numbering itself skips the schema's plain-SQL checks; the relay finds it undecodable. */
  private static final String OWN_SEQUENCE = "INSERT INTO twinbox_outbox (id, sequence, aggregate_type, aggregate_id,"
      + " type, version, payload, traceparent) VALUES (?::uuid, ?, ?, ?, 'ParcelMoved', 1, '{}'::jsonb, ?)";

  @Test
  void everyPanelAndAlertQueryReturnsData(@TempDir Path dir) throws Exception {
    Map<String, String> queries = dashboardQueries();
    List<String> ruleNames = alertNames();
    assertThat(queries).as("panel queries").hasSizeGreaterThan(20);
    KafkaBroker kafka = KafkaBroker.shared();
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String aggregateType = "Dash" + suffix;
    String topic = aggregateType.toLowerCase(Locale.ROOT);
    String consumer = "dashboard-it-" + suffix;
    kafka.createTopic(topic, 2);
    try (PostgresDatabase db = PostgresDatabase.create()) {
      Map<String, String> env = Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
          "TWINBOX_DB_PASSWORD", db.password(), "TWINBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
      Cli.Result migrate = JarProcess.run(dir, env, "migrate");
      assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
      int sidecarPort = JarProcess.freePort();
      Path config = dir.resolve("twinbox.properties");
      Files.writeString(config, String.join("\n", "http.bind=127.0.0.1", "http.port=" + sidecarPort,
          "relay.name=dashboard-it", "relay.poll.interval=200ms", "relay.lease.ttl=3s", ""));

      JdbcStore store = JdbcStore.builder(db.dataSource()).build();
      JdbcInboxStore inboxStore = JdbcInboxStore.of(store);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      InboxMetrics inboxMetrics = new InboxMetrics(consumer);
      inboxMetrics.bindTo(registry);
      new ParkedMetrics(TwinboxAdmin.of(store, inboxStore), List.of(consumer), Duration.ofSeconds(1)).bindTo(registry);
      HttpServer metrics = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      metrics.createContext("/metrics", ex -> {
        byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
      });
      metrics.start();
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> write(db, aggregateType, writing), "dashboard-writer");
      Inbox inbox = Inbox.builder(inboxStore, consumer).listener(inboxMetrics).build();
      try (JarProcess relay = JarProcess.start(dir, env, "relay", "--config", config.toString());
           InboxConsumer c = KafkaInboxConsumer.builder(kafka.bootstrapServers(), consumer).topics(topic)
               .inbox(inbox, db.dataSource()).handler((conn, m) -> {
                 if (m.payload().contains("poison")) {
                   throw new UnprocessableMessageException("refused by the test: poison");
                 }
               }).build();
           PrometheusServer prometheus = PrometheusServer.start(dir, RULES, List.of(
               new String[] {"twinbox-sidecar", "127.0.0.1:" + sidecarPort},
               new String[] {"twinbox-consumer", "127.0.0.1:" + metrics.getAddress().getPort()}))) {
        c.start();
        writer.start();
        failOneRow(db, aggregateType);
        await("Prometheus ready").atMost(Duration.ofSeconds(30)).until(prometheus::ready);
        await("every panel and alert query returns data").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
              assertThat(relay.isAlive()).as(relay.log()).isTrue();
              assertThat(missing(prometheus, queries, ruleNames)).as("queries without data\nPrometheus log:\n%s",
                  tail(prometheus.log())).isEmpty();
            });
        // The panels show the state brought about, not only series at zero (gauges refresh every few seconds).
        await("FAILED, held, parked, published, consumed").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
              assertThat(value(prometheus, "max(twinbox_outbox_failed)")).isGreaterThanOrEqualTo(1);
              assertThat(value(prometheus, "max(twinbox_outbox_held_aggregates)")).isGreaterThanOrEqualTo(1);
              assertThat(value(prometheus, "max(twinbox_inbox_parked{consumer=\"" + consumer + "\"})"))
                  .isGreaterThanOrEqualTo(1);
              assertThat(value(prometheus, "sum(twinbox_relay_publish_total{outcome=\"dead\"})")).isGreaterThanOrEqualTo(1);
              assertThat(value(prometheus, "sum(twinbox_relay_publish_total{outcome=\"published\"})")).isGreaterThan(10);
              assertThat(value(prometheus, "sum(twinbox_inbox_messages_total{outcome=\"processed\"})")).isGreaterThan(10);
            });
        writing.set(false);
        writer.join(10_000);
        assertThat(relay.terminate()).as(relay.log()).isZero();
      } finally {
        writing.set(false);
        writer.join(10_000);
        metrics.stop(0);
        registry.close();
      }
    }
  }

  /** Panel title (and target) → expr, plus each template variable's series query. */
  static Map<String, String> dashboardQueries() throws Exception {
    JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
    Map<String, String> q = new LinkedHashMap<>();
    for (JsonNode p : d.get("panels")) {
      for (JsonNode t : p.path("targets")) {
        q.put("panel '" + p.get("title").asText() + "' target " + t.get("refId").asText(),
            t.get("expr").asText().replace("$__rate_interval", "10s").replace("$relay", ".*")
                .replace("$consumer", ".*"));
      }
    }
    Pattern labelValues = Pattern.compile("label_values\\((\\w+), *(\\w+)\\)");
    for (JsonNode v : d.get("templating").get("list")) {
      Matcher m = labelValues.matcher(v.path("definition").asText());
      if (m.matches()) { // the variable's values are the label's values on that series
        q.put("variable '" + v.get("name").asText() + "'", m.group(1) + "{" + m.group(2) + "!=\"\"}");
      }
    }
    return q;
  }

  /** The alert names in the rule file, as written (Prometheus must list each). */
  static List<String> alertNames() throws Exception {
    List<String> names = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\s*- alert: (\\S+)$").matcher(Files.readString(RULES));
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** What does not (yet) return data: each a line naming the panel or rule and its query. */
  private static List<String> missing(PrometheusServer prometheus, Map<String, String> queries, List<String> alerts) {
    List<String> missing = new ArrayList<>();
    queries.forEach((what, expr) -> {
      JsonNode result = prometheus.query(expr).get("result");
      boolean wal = expr.contains("_slot_");
      boolean number = false;
      for (JsonNode r : result) {
        number |= wal || !"NaN".equals(r.get("value").get(1).asText());
      }
      if (!number) {
        missing.add(what + ": " + expr + (result.isEmpty() ? " (empty result)" : " (only NaN: " + result + ")"));
      }
    });
    Map<String, String> loaded = new LinkedHashMap<>();
    for (JsonNode g : prometheus.api("/api/v1/rules").get("groups")) {
      for (JsonNode r : g.get("rules")) {
        loaded.put(r.get("name").asText(), r.get("query").asText());
        if (!"ok".equals(r.path("health").asText())) {
          missing.add("alert " + r.get("name").asText() + ": health " + r.path("health").asText() + " "
              + r.path("lastError").asText());
        }
      }
    }
    for (String alert : alerts) {
      String expr = loaded.get(alert);
      if (expr == null) {
        missing.add("alert " + alert + ": not loaded by Prometheus");
        continue;
      }
      Matcher m = SELECTOR.matcher(expr);
      while (m.find()) {
        if (prometheus.query(m.group()).get("result").isEmpty()) {
          missing.add("alert " + alert + ": selector " + m.group() + " (empty result) in " + expr);
        }
      }
    }
    return missing;
  }

  private static double value(PrometheusServer prometheus, String expr) {
    JsonNode result = prometheus.query(expr).get("result");
    assertThat(result).as(expr).isNotEmpty();
    return Double.parseDouble(result.get(0).get("value").get(1).asText());
  }

  /** Load: a plain-SQL row every 20 ms over a few aggregates, one in ten refused by the consumer. */
  private static void write(PostgresDatabase db, String aggregateType, AtomicBoolean writing) {
    try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (int i = 0; writing.get(); i++) {
        ps.setString(1, aggregateType);
        ps.setString(2, "p-" + i % 7);
        ps.setString(3, i % 10 == 5 ? "{\"poison\":true}" : "{\"n\":" + i + "}");
        ps.executeUpdate();
        Thread.sleep(20); // pacing the load, not synchronisation
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** An undecodable row (bad traceparent) and its successor: FAILED, and its aggregate held. */
  private static void failOneRow(PostgresDatabase db, String aggregateType) throws Exception {
    try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(OWN_SEQUENCE)) {
      for (int seq = 1; seq <= 2; seq++) {
        ps.setString(1, UUID.randomUUID().toString());
        ps.setLong(2, seq);
        ps.setString(3, aggregateType);
        ps.setString(4, "held-1");
        ps.setString(5, seq == 1 ? "garbage" : null);
        ps.executeUpdate();
      }
    }
  }

  private static String tail(String log) {
    return log.length() > 3000 ? log.substring(log.length() - 3000) : log;
  }
}
