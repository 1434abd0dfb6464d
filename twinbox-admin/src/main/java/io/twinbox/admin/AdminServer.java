package io.twinbox.admin;

import io.twinbox.Health;
import io.twinbox.RelayStats;
import io.twinbox.admin.internal.AdminHandler;
import io.twinbox.admin.internal.AuthThrottle;
import io.twinbox.admin.internal.HealthCache;
import io.twinbox.admin.internal.Tls;
import io.twinbox.admin.internal.Tokens;
import io.twinbox.TwinboxAdmin;
import io.twinbox.spi.OutboxAdminStore;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's HTTP server: {@code /health} and {@code /metrics} for Kubernetes and Prometheus,
 * and — once a token is configured — the admin page at {@code /} and its JSON API under {@code
 * /api/}. Everything goes through a {@link TwinboxAdmin}, the operator facade; the server runs no SQL.
 *
 * <pre>{@code
 * try (AdminServer admin = AdminServer.builder(store)   // best: a store on a small pool of its own
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
 * counts only, and the health verdict is computed at most once per {@link Builder#healthCacheTtl}
 * however many callers ask. The page and {@code /api/} answer 404 until a read or admin token is
 * set; then every API call needs {@code Authorization: Bearer <token>} (401 without a valid one),
 * and the mutations — retry, skip, purge — need the admin token (403 with the read token). The
 * read API lists the failed events, the held aggregates and the pending events (filtered, page by
 * page) and counts what a purge would delete; a purge deletes one bounded batch per request.
 * Parked inbox messages are listed and shown under {@code /api/parked} (a payload only to the admin
 * token, on request) and replayed or discarded with {@code POST /api/parked/actions}. Every mutation, every refused
 * attempt and every failed authentication is written to the audit sink with the caller's role and
 * address, never the token; an address that fails to authenticate too often gets 429 for a while
 * ({@link Builder#authFailureLimit}). Tokens are kept only as SHA-256 digests.
 *
 * <p>Plain HTTP by default, TLS with {@link Builder#tls}. The page and API are refused on an
 * address other than loopback unless TLS is on or {@link Builder#allowPlaintextApi} says a proxy
 * in front terminates TLS.
 *
 * <p>Jetty 12 serves the requests on at most 16 daemon threads. Thread-safe; start once.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  /** The audit logger's name, used when no {@link Builder#auditLog} sink is given. */
  public static final String AUDIT_LOGGER = "io.twinbox.admin.audit";
  /** The shortest token accepted: 32 characters (use random ones, e.g. {@code openssl rand -hex 32}). */
  public static final int MIN_TOKEN_LENGTH = 32;
  /** The longest token accepted. */
  public static final int MAX_TOKEN_LENGTH = 1024;

  private final String host;
  private final int configuredPort;
  private final boolean tls;
  private final String pageMode;
  private final Server server;
  private final ServerConnector connector;
  private boolean started;
  private boolean closed;

  private AdminServer(Builder b) {
    this.host = b.host;
    this.configuredPort = b.port;
    this.tls = b.keyStore != null;
    this.pageMode = b.readDigest == null && b.adminDigest == null ? "off: no token configured"
        : b.adminDigest == null ? "read-only" : "with mutations";
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("twinbox-admin");
    threads.setDaemon(true);
    server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    HttpConnectionFactory plain = new HttpConnectionFactory(http);
    if (tls) {
      http.addCustomizer(new SecureRequestCustomizer(false));
      SslConnectionFactory ssl = new SslConnectionFactory(Tls.factory(b.keyStore, b.keyStorePassword),
          plain.getProtocol());
      connector = new ServerConnector(server, 1, 1, ssl, plain);
    } else {
      connector = new ServerConnector(server, 1, 1, plain);
    }
    connector.setHost(host);
    connector.setPort(b.port);
    server.addConnector(connector);
    ErrorHandler errors = new ErrorHandler();
    errors.setShowStacks(false);
    errors.setShowMessageInTitle(false);
    server.setErrorHandler(errors);
    Consumer<String> audit = b.auditLog != null ? b.auditLog : LoggerFactory.getLogger(AUDIT_LOGGER)::info;
    HealthCache health = b.health == null ? null : new HealthCache(b.health::check, b.healthCacheTtl);
    server.setHandler(new AdminHandler(b.admin, health, b.metrics, b.relayStats,
        new Tokens(b.readDigest, b.adminDigest), new AuthThrottle(b.authFailures, b.authFailureWindow), audit,
        b.redact));
  }

  /** Starts configuring a server over {@code admin}. */
  public static Builder builder(TwinboxAdmin admin) {
    return new Builder(admin);
  }

  /** {@link #builder(TwinboxAdmin)} over {@code TwinboxAdmin.of(store)}. */
  public static Builder builder(OutboxAdminStore store) {
    return builder(TwinboxAdmin.of(store));
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
      String where = host + ":" + configuredPort;
      if (e instanceof BindException || e.getCause() instanceof BindException) {
        throw new IllegalStateException("cannot bind the admin server to " + where
            + ": the address is in use or not local (choose another port or bindAddress)", e);
      }
      throw new IllegalStateException("cannot start the admin server on " + where + ": " + e.getMessage(), e);
    }
    LOG.info("admin server listening on {}://{}:{}/ (page and API {})", tls ? "https" : "http", host, port(),
        pageMode);
    return this;
  }

  /**
   * Whether {@code host} names loopback addresses only ({@code 127.0.0.1}, {@code ::1}, {@code
   * localhost}); {@code 0.0.0.0} and names that do not resolve are not loopback.
   */
  public static boolean isLoopback(String host) {
    try {
      InetAddress[] all = InetAddress.getAllByName(host);
      for (InetAddress a : all) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return all.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Whether the server speaks TLS. */
  public boolean tls() {
    return tls;
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
    private final TwinboxAdmin admin;
    private String host = "127.0.0.1";
    private int port = 8080;
    private Health health;
    private Duration healthCacheTtl = Duration.ofSeconds(2);
    private Supplier<String> metrics;
    private Supplier<RelayStats> relayStats;
    // Digests only: the plaintext tokens are dropped as soon as they are checked.
    private byte[] readDigest;
    private byte[] adminDigest;
    private Consumer<String> auditLog;
    private KeyStore keyStore;
    private char[] keyStorePassword;
    private boolean allowPlaintextApi;
    private int authFailures = 10;
    private Duration authFailureWindow = Duration.ofMinutes(1);
    private UnaryOperator<String> redact = UnaryOperator.identity();

    Builder(TwinboxAdmin admin) {
      this.admin = Objects.requireNonNull(admin, "admin cannot be null");
    }

    /**
     * The address to listen on. Default {@code 127.0.0.1}; {@code 0.0.0.0} for all interfaces
     * (then the page and API need {@link #tls} or {@link #allowPlaintextApi}).
     */
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
     * How long one {@code /health} verdict is reused. Default 2 s; 0 checks on every request.
     * Callers that arrive while a check runs share its verdict (one check at a time), so a flood
     * of probes costs the database at most one status read per period. 0–60 s.
     */
    public Builder healthCacheTtl(Duration ttl) {
      Objects.requireNonNull(ttl, "healthCacheTtl cannot be null");
      if (ttl.isNegative() || ttl.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("healthCacheTtl must be between 0 and 60 s, was " + ttl);
      }
      this.healthCacheTtl = ttl;
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
     * <token>}. {@value AdminServer#MIN_TOKEN_LENGTH}–{@value AdminServer#MAX_TOKEN_LENGTH} visible
     * ASCII characters; use a random value. Only its SHA-256 digest is kept.
     */
    public Builder readToken(String token) {
      this.readDigest = Tokens.digest(token("readToken", token));
      return this;
    }

    /**
     * Allows retry, skip and purge besides reading (and turns the page on by itself too). Must differ from
     * the read token; same rules as {@link #readToken}.
     */
    public Builder adminToken(String token) {
      this.adminDigest = Tokens.digest(token("adminToken", token));
      return this;
    }

    /**
     * Where audit lines go: one line per mutation, refused attempt or failed authentication, e.g.
     * {@code action=retry selector=id:… affected=1 role=admin remote=10.0.0.7}. Default: INFO on
     * the SLF4J logger {@value AdminServer#AUDIT_LOGGER}.
     */
    public Builder auditLog(Consumer<String> sink) {
      this.auditLog = Objects.requireNonNull(sink, "auditLog cannot be null");
      return this;
    }

    /**
     * Serves HTTPS with the server certificate and private key of a PKCS12 or JKS key store (key
     * password = store password). The store is opened here, so a wrong path or password fails now.
     * Default: plain HTTP.
     *
     * @throws IllegalArgumentException naming {@code tls} (never the password) when the store
     *     cannot be read, opened or holds no key
     */
    public Builder tls(Path keyStore, String password) {
      Objects.requireNonNull(keyStore, "tls keyStore cannot be null");
      Objects.requireNonNull(password, "tls password cannot be null");
      char[] pw = password.toCharArray();
      this.keyStore = Tls.open("tls keyStore", keyStore, pw);
      this.keyStorePassword = pw;
      return this;
    }

    /**
     * Allows the page and API over plain HTTP on an address other than loopback — only when a proxy
     * or ingress in front terminates TLS, since tokens would otherwise cross the network in clear.
     * Default false: {@link #build} refuses that combination.
     */
    public Builder allowPlaintextApi(boolean allow) {
      this.allowPlaintextApi = allow;
      return this;
    }

    /**
     * How many failed authentications an address may make in a burst ({@code failures}) and how
     * fast it earns new tries ({@code failures} per {@code window}); beyond that its {@code /api/}
     * requests get 429 with {@code Retry-After}, whatever token they carry. Default 10 per minute.
     */
    public Builder authFailureLimit(int failures, Duration window) {
      if (failures < 1 || failures > 10_000) {
        throw new IllegalArgumentException("authFailureLimit failures must be between 1 and 10000, was " + failures);
      }
      Objects.requireNonNull(window, "authFailureLimit window cannot be null");
      if (window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException("authFailureLimit window must be between 1 s and 1 day, was " + window);
      }
      this.authFailures = failures;
      this.authFailureWindow = window;
      return this;
    }

    /**
     * Applied to every text the server sends (JSON answers, {@code /metrics}) and to every audit
     * line, e.g. to mask secrets that a store error might quote. Default: none.
     */
    public Builder redact(UnaryOperator<String> redact) {
      this.redact = Objects.requireNonNull(redact, "redact cannot be null");
      return this;
    }

    /**
     * Builds a server, not yet listening.
     *
     * @throws IllegalArgumentException when the read and admin tokens are equal, or when a token
     *     turns the page and API on at an address other than loopback without {@link #tls} or
     *     {@link #allowPlaintextApi}
     */
    public AdminServer build() {
      if (Tokens.same(readDigest, adminDigest)) {
        throw new IllegalArgumentException("readToken and adminToken must differ");
      }
      boolean api = readDigest != null || adminDigest != null;
      if (api && keyStore == null && !allowPlaintextApi && !isLoopback(host)) {
        throw new IllegalArgumentException("bindAddress " + host + " is not a loopback address: the admin page and"
            + " /api/ need tls(keyStore, password), or allowPlaintextApi(true) when a proxy in front terminates TLS");
      }
      return new AdminServer(this);
    }

    private static String token(String field, String token) {
      Objects.requireNonNull(token, field + " cannot be null");
      if (token.length() < MIN_TOKEN_LENGTH || token.length() > MAX_TOKEN_LENGTH) {
        // The length only: the value is a secret.
        throw new IllegalArgumentException(field + " must be " + MIN_TOKEN_LENGTH + "–" + MAX_TOKEN_LENGTH
            + " characters, was " + token.length());
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
