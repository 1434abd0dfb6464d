package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.twinbox.InboxMessage;
import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The shipped Prometheus alert rules: every metric they use is one Twinbox really exports (names
 * scraped from Micrometer's Prometheus registry), and {@code promtool} accepts and evaluates them
 * (each alert fires on a bad series and stays quiet on a good one: ops/prometheus/*.test.yml).
 */
class AlertRulesTest {
  private static final Path RULES = Path.of("..", "ops", "prometheus", "twinbox-alerts.yml");
  private static final Path RULE_TESTS = Path.of("..", "ops", "prometheus", "twinbox-alerts.test.yml");

  /** A fixed status, standing in for a database in this pure unit test. */
  private static final OutboxAdminStore FIXED = new OutboxAdminStore() {
    @Override
    public OutboxStatus status() {
      return new OutboxStatus(3, 1, 1, 1, Duration.ofSeconds(42), Map.of("node", 64), 0);
    }

    @Override
    public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
      return List.of();
    }

    @Override
    public int retry(EventSelector selector) {
      return 0;
    }

    @Override
    public int skip(EventSelector selector) {
      return 0;
    }

    @Override
    public int purgePublished(Duration age, int limit) {
      return 0;
    }
  };

  private static Set<String> exportedNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new RelayMetrics("r").bindTo(registry);
    InboxMetrics inbox = new InboxMetrics("c");
    inbox.bindTo(registry);
    inbox.parked(new InboxMessage("m", "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null), "x");
    OutboxMetrics.of(FIXED).bindTo(registry);
    io.twinbox.testing.InMemoryStore store = io.twinbox.testing.InMemoryStore.create();
    ParkedMetrics.of(io.twinbox.TwinboxAdmin.of(store), "c").bindTo(registry);
    Set<String> names = new TreeSet<>();
    for (String line : registry.scrape().split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        names.add(line.split("[{ ]")[0]);
      }
    }
    return names;
  }

  @Test
  void everyMetricTheRulesUseIsExported() throws IOException {
    Set<String> exported = exportedNames();
    assertThat(exported).contains("twinbox_outbox_pending", "twinbox_outbox_oldest_age_seconds",
        "twinbox_relay_publish_total", "twinbox_inbox_messages_total", "twinbox_relay_slot_lag_bytes",
        "twinbox_relay_slot_lag_seconds", "twinbox_relay_slot_lost", "twinbox_inbox_parked",
        "twinbox_inbox_parked_oldest_age_seconds");
    Matcher m = Pattern.compile("twinbox_[a-z_]+").matcher(Files.readString(RULES, StandardCharsets.UTF_8));
    Set<String> used = new TreeSet<>();
    while (m.find()) {
      used.add(m.group());
    }
    assertThat(used).hasSize(12);
    assertThat(exported).containsAll(used);
  }

  @Test
  void promtoolAcceptsAndEvaluatesTheRules() throws Exception {
    if (!onPath("promtool")) {
      String why = "promtool not found (Debian package 'prometheus'); .ci/run installs it";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(why);
      }
      System.err.println("SKIPPED: " + why);
      Assumptions.abort(why);
    }
    assertThat(run("promtool", "check", "rules", RULES.toString())).contains("SUCCESS: 10 rules found");
    assertThat(run("promtool", "test", "rules", RULE_TESTS.toString())).contains("SUCCESS");
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    return out;
  }
}
