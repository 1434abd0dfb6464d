package io.twinbox.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.twinbox.CompletionMode;
import io.twinbox.Health;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Settings;
import io.twinbox.cli.internal.Transports;
import io.twinbox.micrometer.OutboxMetrics;
import io.twinbox.micrometer.RelayMetrics;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code twinbox relay}: the standalone relay. Publishes every row inserted into {@code
 * twinbox_outbox} — by a Java service or by plain SQL from any language — and serves {@code
 * /metrics} (Prometheus), {@code /health} and the admin page. SIGTERM or SIGINT stop it gracefully
 * (in-flight waves finish, leases are released) with exit code 0.
 */
@Command(name = "relay", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the standalone relay (sidecar): publish the rows of twinbox_outbox to Kafka, RabbitMQ or"
        + " NATS, and serve /metrics, /health and the admin page over HTTP (http.port, default 8080).",
        "SIGTERM/SIGINT stop it gracefully with exit code 0. Secrets are masked in every log line."},
    footer = ExitCodes.HELP)
final class RelayCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RelayCommand.class);

  @Spec
  CommandSpec spec;
  @Mixin
  DbOptions db;
  @Option(names = "--migrate", description = "Create or upgrade the tables before starting.")
  boolean migrate;

  @Override
  public Integer call() throws Exception {
    Settings s = db.settings(spec);
    RelaySettings rs = RelaySettings.of(s);
    LOG.info("twinbox relay starting with {}", s.describe());
    CountDownLatch stop = new CountDownLatch(1);
    Signal.handle(new Signal("TERM"), sig -> stop.countDown());
    Signal.handle(new Signal("INT"), sig -> stop.countDown());
    try (Database d = Database.open(s, rs.poolSize, "twinbox-relay")) {
      if (migrate) {
        d.store().migrate();
      } else {
        d.store().verifySchema();
      }
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      RelayMetrics relayMetrics = new RelayMetrics(rs.name);
      relayMetrics.bindTo(registry);
      OutboxMetrics.of(d.store()).bindTo(registry);
      Health health = new Health(d.store(), rs.maxPendingAge);
      try (Transport transport = Transports.build(s);
           Relay relay = rs.apply(Relay.builder(d.store(), transport)).listener(relayMetrics).build()) {
        relay.start();
        try (AutoCloseable http = SidecarHttp.start(s, d.store(), health, registry::scrape, relay)) {
          LOG.info("twinbox relay {} running ({} transport); SIGTERM stops it", relay.nodeId(), transport.name());
          stop.await();
          LOG.info("twinbox relay {} stopping: finishing in-flight work and releasing its leases", relay.nodeId());
        }
      }
      registry.close();
    }
    LOG.info("twinbox relay stopped");
    return ExitCodes.OK;
  }

  /** The relay.* settings, validated before anything connects. */
  static final class RelaySettings {
    String name;
    int poolSize;
    Duration maxPendingAge;
    private Settings s;

    static RelaySettings of(Settings s) {
      RelaySettings r = new RelaySettings();
      r.s = s;
      r.name = s.require("relay.name");
      r.poolSize = s.intValue("db.pool.size", 2, 200);
      r.maxPendingAge = s.duration("health.max.pending.age");
      // Parse every relay.* value set now, so a typo fails before anything connects; the builder
      // checks the ranges again when the relay is built.
      optional(s, "relay.batch.size", () -> s.intValue("relay.batch.size", 1, 100_000));
      optional(s, "relay.workers", () -> s.intValue("relay.workers", 1, 64));
      optional(s, "relay.max.attempts", () -> s.intValue("relay.max.attempts", 1, 1_000));
      optional(s, "relay.poll.interval", () -> s.duration("relay.poll.interval"));
      optional(s, "relay.lease.ttl", () -> s.duration("relay.lease.ttl"));
      optional(s, "relay.publish.timeout", () -> s.duration("relay.publish.timeout"));
      optional(s, "relay.completion.mode", () -> s.choice("relay.completion.mode", "DELETE", "MARK"));
      s.choice("transport", "kafka", "rabbitmq", "nats");
      s.bool("http.enabled");
      s.intValue("http.port", 0, 65_535);
      return r;
    }

    private static void optional(Settings s, String key, Runnable check) {
      if (s.get(key) != null) {
        check.run();
      }
    }

    /** Applies the relay.* settings that are set; the builder's defaults stand for the others. */
    Relay.Builder apply(Relay.Builder b) {
      set("relay.source", () -> b.source(s.get("relay.source")));
      set("relay.node.id", () -> b.nodeId(s.get("relay.node.id")));
      set("relay.batch.size", () -> b.batchSize(s.intValue("relay.batch.size", 1, 100_000)));
      set("relay.workers", () -> b.workers(s.intValue("relay.workers", 1, 64)));
      set("relay.poll.interval", () -> b.pollInterval(s.duration("relay.poll.interval")));
      set("relay.lease.ttl", () -> b.leaseTtl(s.duration("relay.lease.ttl")));
      set("relay.publish.timeout", () -> b.publishTimeout(s.duration("relay.publish.timeout")));
      set("relay.max.attempts", () -> b.retryPolicy(
          RetryPolicy.builder().maxAttempts(s.intValue("relay.max.attempts", 1, 1_000)).build()));
      set("relay.completion.mode", () -> b.completionMode(
          CompletionMode.valueOf(s.choice("relay.completion.mode", "DELETE", "MARK").toUpperCase(Locale.ROOT))));
      return b;
    }

    private void set(String key, Runnable apply) {
      if (s.get(key) == null) {
        return;
      }
      try {
        apply.run();
      } catch (IllegalArgumentException e) {
        throw new ConfigException(key + " is invalid: " + e.getMessage());
      }
    }
  }
}
