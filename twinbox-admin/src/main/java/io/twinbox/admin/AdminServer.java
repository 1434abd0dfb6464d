package io.twinbox.admin;

import io.twinbox.Health;
import io.twinbox.RelayStats;
import io.twinbox.admin.internal.AdminHandler;
import io.twinbox.admin.internal.Tokens;
import io.twinbox.spi.OutboxAdminStore;
import java.net.BindException;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's HTTP server: {@code /health} and {@code /metrics} for Kubernetes and Prometheus,
 * and — once a token is configured — the admin page at {@code /} and its JSON API under {@code
 * /api/}. Everything goes through an {@link OutboxAdminStore}; the server runs no SQL.
 *
 * <pre>{@code
 * try (AdminServer admin = AdminServer.builder(store)
 *     .port(8080)
 *     .health(new Health(store, Duration.ofMinutes(1)))
 *     .metrics(prometheusRegistry::scrape)
 *     .readToken(System.getenv("TWINBOX_ADMIN_READ_TOKEN"))
 *     .adminToken(System.getenv("TWINBOX_ADMIN_TOKEN"))
 *     .build()
 *     .start()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>{@code /health} and {@code /metrics} need no token, as probes and scrapers expect; they show
 * counts only. The page and {@code /api/} answer 404 until a read or admin token is set; then every
 * API call needs {@code Authorization: Bearer <token>} (401 without a valid one), and retry and
 * skip need the admin token (403 with the read token). Every mutation, and every refused attempt,
 * is written to the audit sink with the caller's role and address, never the token.
 *
 * <p>Jetty 12 serves the requests on at most 16 daemon threads. Thread-safe; start once.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  /** The audit logger's name, used when no {@link Builder#auditLog} sink is given. */
  public static final String AUDIT_LOGGER = "io.twinbox.admin.audit";

  private final Builder config;
  private final Server server;
  private final ServerConnector connector;
  private boolean started;
  private boolean closed;

  private AdminServer(Builder b) {
    this.config = b.copy();
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("twinbox-admin");
    threads.setDaemon(true);
    server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    ConnectionFactory factory = new HttpConnectionFactory(http);
    connector = new ServerConnector(server, 1, 1, factory);
    connector.setHost(config.host);
    connector.setPort(config.port);
    server.addConnector(connector);
    ErrorHandler errors = new ErrorHandler();
    errors.setShowStacks(false);
    errors.setShowMessageInTitle(false);
    server.setErrorHandler(errors);
    Consumer<String> audit = config.auditLog != null ? config.auditLog : LoggerFactory.getLogger(AUDIT_LOGGER)::info;
    server.setHandler(new AdminHandler(config.admin, config.health, config.metrics, config.relayStats,
        new Tokens(config.readToken, config.adminToken), audit));
  }

  /** Starts configuring a server over {@code admin}. */
  public static Builder builder(OutboxAdminStore admin) {
    return new Builder(admin);
  }

  /**
   * Binds the port and starts serving. Returns this server, so {@code builder(...).build().start()}
   * reads well in a try-with-resources.
   *
   * @throws IllegalStateException when the address cannot be bound (port taken, unknown host) or
   *     the server was started before
   */
  public synchronized AdminServer start() {
    if (started) {
      throw new IllegalStateException("the admin server was already started");
    }
    started = true;
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly();
      String where = config.host + ":" + config.port;
      if (e instanceof BindException || e.getCause() instanceof BindException) {
        throw new IllegalStateException("cannot bind the admin server to " + where
            + ": the address is in use or not local (choose another port or bindAddress)", e);
      }
      throw new IllegalStateException("cannot start the admin server on " + where + ": " + e.getMessage(), e);
    }
    LOG.info("admin server listening on http://{}:{}/ (page and API {})", config.host, port(),
        config.readToken == null && config.adminToken == null ? "off: no token configured"
            : config.adminToken == null ? "read-only" : "with mutations");
    return this;
  }

  /** The port bound: the configured one, or the one picked for port 0. Negative when not listening. */
  public int port() {
    return connector.getLocalPort();
  }

  /** Stops serving; requests in progress get a moment to finish. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopQuietly();
  }

  private void stopQuietly() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("the admin server did not stop cleanly: {}", e.toString());
    }
  }

  /** Configures an {@link AdminServer}. Not thread-safe; every setting but the store is optional. */
  public static final class Builder {
    private static final int MAX_TOKEN_LENGTH = 1024;

    private final OutboxAdminStore admin;
    private String host = "127.0.0.1";
    private int port = 8080;
    private Health health;
    private Supplier<String> metrics;
    private Supplier<RelayStats> relayStats;
    private String readToken;
    private String adminToken;
    private Consumer<String> auditLog;

    Builder(OutboxAdminStore admin) {
      this.admin = Objects.requireNonNull(admin, "admin cannot be null");
    }

    private Builder copy() {
      Builder b = new Builder(admin);
      b.host = host;
      b.port = port;
      b.health = health;
      b.metrics = metrics;
      b.relayStats = relayStats;
      b.readToken = readToken;
      b.adminToken = adminToken;
      b.auditLog = auditLog;
      return b;
    }

    /** The address to listen on. Default {@code 127.0.0.1}; {@code 0.0.0.0} for all interfaces. */
    public Builder bindAddress(String host) {
      Objects.requireNonNull(host, "bindAddress cannot be null");
      if (host.isBlank()) {
        throw new IllegalArgumentException("bindAddress cannot be blank");
      }
      this.host = host.strip();
      return this;
    }

    /** The TCP port. Default 8080; 0 picks a free one (see {@link AdminServer#port()}); 0–65535. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Serves {@code GET /health}: 200 with {@code "status":"UP"} or 503 with {@code "DOWN"} and the
     * reasons, plus the outbox counts. Without it {@code /health} answers 404.
     */
    public Builder health(Health health) {
      this.health = Objects.requireNonNull(health, "health cannot be null");
      return this;
    }

    /**
     * Serves {@code GET /metrics} as {@code text/plain; version=0.0.4}, the Prometheus text format,
     * e.g. {@code prometheusMeterRegistry::scrape}. Without it {@code /metrics} answers 404.
     */
    public Builder metrics(Supplier<String> prometheusScrape) {
      this.metrics = Objects.requireNonNull(prometheusScrape, "metrics cannot be null");
      return this;
    }

    /**
     * The counters of the relay running in this process ({@code relay::stats}); the page then shows
     * its throughput (published per second over the last minute). Optional.
     */
    public Builder relayStats(Supplier<RelayStats> relayStats) {
      this.relayStats = Objects.requireNonNull(relayStats, "relayStats cannot be null");
      return this;
    }

    /**
     * Turns the page and the read API on; callers present it as {@code Authorization: Bearer
     * <token>}. Use a long random value (32+ characters). 1–1024 visible ASCII characters.
     */
    public Builder readToken(String token) {
      this.readToken = token("readToken", token);
      return this;
    }

    /**
     * Allows retry and skip besides reading (and turns the page on by itself too). Must differ from
     * the read token. 1–1024 visible ASCII characters.
     */
    public Builder adminToken(String token) {
      this.adminToken = token("adminToken", token);
      return this;
    }

    /**
     * Where audit lines go: one line per mutation or refused attempt, e.g. {@code action=retry
     * selector=id:… affected=1 role=admin remote=10.0.0.7}. Default: INFO on the SLF4J logger
     * {@value AdminServer#AUDIT_LOGGER}.
     */
    public Builder auditLog(Consumer<String> sink) {
      this.auditLog = Objects.requireNonNull(sink, "auditLog cannot be null");
      return this;
    }

    /**
     * Builds a server, not yet listening.
     *
     * @throws IllegalArgumentException when the read and admin tokens are equal
     */
    public AdminServer build() {
      if (readToken != null && readToken.equals(adminToken)) {
        throw new IllegalArgumentException("readToken and adminToken must differ");
      }
      return new AdminServer(this);
    }

    private static String token(String field, String token) {
      Objects.requireNonNull(token, field + " cannot be null");
      if (token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
        // The length only: the value is a secret.
        throw new IllegalArgumentException(field + " must be 1–" + MAX_TOKEN_LENGTH + " characters, was "
            + token.length());
      }
      for (int i = 0; i < token.length(); i++) {
        char c = token.charAt(i);
        if (c <= ' ' || c > '~') {
          throw new IllegalArgumentException(field + " must be visible ASCII characters without spaces"
              + " (character " + (i + 1) + " is not)");
        }
      }
      return token;
    }
  }
}
