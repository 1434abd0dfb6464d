package io.twinbox.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.twinbox.Health;
import io.twinbox.HealthSettings;
import io.twinbox.Relay;
import io.twinbox.Retention;
import io.twinbox.RetentionSettings;
import io.twinbox.TwinboxAdmin;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Settings;
import io.twinbox.cli.internal.Transports;
import io.twinbox.micrometer.OutboxMetrics;
import io.twinbox.micrometer.RelayMetrics;
import io.twinbox.micrometer.RetentionMetrics;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.settings.SettingValues;
import io.twinbox.spi.Transport;
import java.time.Duration;
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
    s.warnings().forEach(w -> LOG.warn("{}", w));
    CountDownLatch stop = new CountDownLatch(1);
    Signal.handle(new Signal("TERM"), sig -> stop.countDown());
    Signal.handle(new Signal("INT"), sig -> stop.countDown());
    try (Database d = Database.open(s, rs.poolSize, "twinbox-relay");
         // The HTTP side reads through a small pool of its own: /health needs no token, and a
         // flood of probes must never make the lease renewals wait for one of the relay's connections.
         Database web = rs.http ? Database.open(s, rs.httpPoolSize, "twinbox-http") : d) {
      if (migrate) {
        d.store().migrate();
      } else {
        d.store().verifySchema();
      }
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      RelayMetrics relayMetrics = new RelayMetrics(rs.name);
      relayMetrics.bindTo(registry);
      OutboxMetrics.of(web.store()).bindTo(registry); // read on scrape, i.e. on an HTTP thread
      TwinboxAdmin admin = TwinboxAdmin.of(web.store());
      try (Transport transport = Transports.build(s);
           Relay relay = rs.apply(Relay.builder(d.store(), transport)).listener(relayMetrics).build();
           // Retention deletes through a pool of its own (the lock holds one connection per round):
           // its rounds never make the relay wait for a connection.
           Database cleanup = rs.retentionEnabled ? Database.open(s, 2, "twinbox-retention") : null;
           AutoCloseable retention = rs.retentionEnabled ? rs.startRetention(cleanup, registry) : null) {
        // DOWN also when the relay stopped for good (a WAL relay whose slot was lost)
        Health health = admin.health(rs.maxPendingAge).watching(() -> relay);
        relay.start();
        try (AutoCloseable http = SidecarHttp.start(s, admin, health, registry::scrape, relay)) {
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

  /**
   * The settings the relay needs, all checked before anything connects. The relay.* keys are the
   * {@link RelaySettings} catalogue's: parsed and checked by it, and applied to the builder by it.
   */
  static final class RelaySettings {
    String name;
    int poolSize;
    boolean http;
    int httpPoolSize;
    Duration maxPendingAge;
    boolean retentionEnabled;
    private SettingValues relay;
    private SettingValues retention;

    static RelaySettings of(Settings s) {
      RelaySettings r = new RelaySettings();
      r.name = s.require("relay.name");
      r.poolSize = s.intValue("db.pool.size");
      r.maxPendingAge = s.value(HealthSettings.CATALOGUE, HealthSettings.MAX_OLDEST_PENDING_AGE);
      r.relay = s.values(io.twinbox.RelaySettings.CATALOGUE);
      // retention.* checked even when off, so a wrong value (an inbox age below the horizon) is seen at once
      r.retention = s.values(RetentionSettings.CATALOGUE);
      r.retentionEnabled = r.retention.get(RetentionSettings.ENABLED);
      Transports.check(s);
      r.http = s.bool("http.enabled");
      SidecarHttp.check(s);
      r.httpPoolSize = r.http ? s.intValue("http.pool.size") : 0;
      return r;
    }

    /**
     * Starts {@link Retention} over the sidecar's outbox and the inbox tables of the same database,
     * with the retention.* settings; its meters go to /metrics. One round at a time across every
     * sidecar on the database (the database lock); closing it stops the schedule.
     */
    Retention startRetention(Database db, PrometheusMeterRegistry registry) {
      RetentionMetrics metrics = new RetentionMetrics();
      metrics.bindTo(registry);
      Retention r = RetentionSettings.CATALOGUE.apply(Retention.builder()
          .outbox(db.store(), retention.get(RetentionSettings.PUBLISHED_AGE))
          .inbox(JdbcInboxStore.of(db.store()), retention.get(RetentionSettings.INBOX_AGE))
          .listener(metrics), retention).build();
      r.start();
      LOG.info("twinbox retention scheduled every {}: PUBLISHED rows after {}, inbox records after {}",
          RetentionSettings.PERIOD.format(r.period()), RetentionSettings.PUBLISHED_AGE.format(retention.get(RetentionSettings.PUBLISHED_AGE)),
          RetentionSettings.INBOX_AGE.format(retention.get(RetentionSettings.INBOX_AGE)));
      return r;
    }

    /** Applies the relay.* settings that are set; the builder's defaults (the catalogue's) stand for the others. */
    Relay.Builder apply(Relay.Builder b) {
      return io.twinbox.RelaySettings.CATALOGUE.apply(b, relay);
    }
  }
}
