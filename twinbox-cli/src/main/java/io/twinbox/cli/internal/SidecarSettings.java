package io.twinbox.cli.internal;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * The settings only the CLI has — the database, the transport choice, the HTTP side and the admin
 * tokens — declared in catalogues like the library's, so that {@link Settings} lists, parses and
 * masks them the same way. The relay's, the health check's and the brokers' settings come from
 * the library's own catalogues. Immutable.
 */
public final class SidecarSettings {
  private static final Set<String> TRANSPORTS = Set.of("kafka", "rabbitmq", "nats");

  public static final Catalogue<Void> DB = Catalogue.<Void>builder("db", "the database")
      .add(Setting.string("url").length(10_000).defaultText("(required)")
          .description("JDBC URL of the database holding twinbox_outbox: jdbc:postgresql://… or jdbc:mariadb://…"))
      .add(Setting.string("user").length(255).description("Database user."))
      .add(Setting.string("password").asSecret().description("Database password."))
      .add(Setting.integer("poolSize").range(2, 200).defaultValue(6)
          .description("Connections of the relay's pool (the HTTP side has its own, http.pool.size)."))
      .add(Setting.duration("connectTimeout").positive().defaultValue(Duration.ofSeconds(10))
          .description("Longest wait for a database connection."))
      .build();

  public static final Catalogue<Void> TOP = Catalogue.<Void>builder("", "the sidecar")
      .add(Setting.string("transport").valid(t -> TRANSPORTS.contains(t.toLowerCase(Locale.ROOT)),
          "kafka, rabbitmq or nats").defaultValue("kafka").description("The broker the relay publishes to."))
      .build();

  public static final Catalogue<Void> RELAY = Catalogue.<Void>builder("relay", "the sidecar's relay")
      .add(Setting.string("name").length(255).defaultValue("twinbox").description("The relay tag of its metrics."))
      .build();

  public static final Catalogue<Void> HTTP = Catalogue.<Void>builder("http", "the sidecar's HTTP side")
      .add(Setting.bool("enabled").defaultValue(true).description("Serve /metrics, /health and the admin page."))
      .add(Setting.string("bind").length(255).defaultValue("127.0.0.1")
          .description("Address the HTTP server listens on (0.0.0.0: all interfaces)."))
      .add(Setting.integer("port").range(0, 65_535).defaultValue(8080)
          .description("HTTP port; 0 = any free port (logged)."))
      .add(Setting.integer("poolSize").range(1, 20).defaultValue(2)
          .description("Connections of the HTTP side's own pool (/health, /metrics, admin page); never the relay's."))
      .add(Setting.string("tls.keystorePath").length(4096)
          .description("PKCS12 or JKS key store with the server certificate and key: serve HTTPS."))
      .add(Setting.string("tls.keystorePassword").asSecret().description("Password of the key store (and its key)."))
      .add(Setting.bool("allowPlaintext").defaultValue(false).description("Allow the admin page and /api/ over plain"
          + " HTTP on an address other than loopback (only behind a TLS-terminating proxy)."))
      .build();

  public static final Catalogue<Void> ADMIN = Catalogue.<Void>builder("admin", "the admin page")
      .add(Setting.string("readToken").asSecret()
          .description("Token for the read-only admin page (32+ characters); the page is off without one."))
      .add(Setting.string("token").asSecret().description("Token that may also retry and skip (32+ characters)."))
      .build();

  private SidecarSettings() {}
}
