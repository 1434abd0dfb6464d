package io.twinbox.cli;

import io.twinbox.Health;
import io.twinbox.Relay;
import io.twinbox.TwinboxAdmin;
import io.twinbox.admin.AdminServer;
import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Scrubber;
import io.twinbox.cli.internal.Settings;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's HTTP side, served by {@link AdminServer}: {@code /metrics}, {@code /health}, and
 * the admin page and API when a token is configured. Mutations and failed authentications go to
 * the audit log (INFO). Every answer and audit line passes {@link Scrubber#scrub}.
 *
 * <p>The store given here must be on a pool of its own ({@code http.pool.size}): whatever the HTTP
 * side is asked, it cannot take the connections the relay's lease renewals and claims need.
 */
final class SidecarHttp {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarHttp.class);
  private static final Logger AUDIT = LoggerFactory.getLogger(AdminServer.AUDIT_LOGGER);
  /** The builder's names in its messages, and the settings that feed them. */
  private static final Map<String, String> SETTING_OF = Map.of("readToken", "admin.read.token",
      "adminToken", "admin.token", "bindAddress", "http.bind", "tls keyStore", "http.tls.keystore.path");

  private SidecarHttp() {}

  /** Validates the http.* and admin.* settings without binding anything. */
  static void check(Settings s) {
    if (!s.bool("http.enabled")) {
      return;
    }
    s.intValue("http.port");
    s.intValue("http.pool.size");
    s.bool("http.allow.plaintext");
    for (String token : new String[] {"admin.read.token", "admin.token"}) {
      String v = s.get(token);
      if (v != null && (v.length() < AdminServer.MIN_TOKEN_LENGTH || v.length() > AdminServer.MAX_TOKEN_LENGTH)) {
        // The length only: the value is a secret.
        throw new ConfigException(token + " must be " + AdminServer.MIN_TOKEN_LENGTH + "–"
            + AdminServer.MAX_TOKEN_LENGTH + " characters (a random value, e.g. `openssl rand -hex 32`), was "
            + v.length());
      }
    }
    boolean tls = s.get("http.tls.keystore.path") != null;
    if (tls != (s.get("http.tls.keystore.password") != null)) {
      throw new ConfigException("http.tls.keystore.path and http.tls.keystore.password go together: set both for"
          + " HTTPS, or neither");
    }
    boolean api = s.get("admin.read.token") != null || s.get("admin.token") != null;
    String bind = s.require("http.bind");
    if (api && !tls && !s.bool("http.allow.plaintext") && !AdminServer.isLoopback(bind)) {
      throw new ConfigException("http.bind=" + bind + " is not a loopback address, and an admin token turns the"
          + " admin page and /api/ on: tokens would cross the network in clear. Set http.tls.keystore.path and"
          + " http.tls.keystore.password to serve HTTPS, or http.allow.plaintext=true when a proxy in front"
          + " terminates TLS (or bind 127.0.0.1)");
    }
  }

  static AutoCloseable start(Settings s, TwinboxAdmin admin, Health health, Supplier<String> scrape,
      Relay relay) {
    if (!s.bool("http.enabled")) {
      LOG.info("HTTP is off (http.enabled=false): no /metrics, /health or admin page");
      return () -> {};
    }
    check(s);
    AdminServer server;
    try {
      AdminServer.Builder b = AdminServer.builder(admin)
          .bindAddress(s.require("http.bind"))
          .port(s.intValue("http.port"))
          .health(health)
          .metrics(scrape)
          .relayStats(relay::stats)
          .auditLog(AUDIT::info)
          .redact(Scrubber::scrub)
          .allowPlaintextApi(s.bool("http.allow.plaintext"));
      if (s.get("http.tls.keystore.path") != null) {
        b.tls(Path.of(s.get("http.tls.keystore.path")), s.get("http.tls.keystore.password"));
      }
      if (s.get("admin.read.token") != null) {
        b.readToken(s.get("admin.read.token"));
      }
      if (s.get("admin.token") != null) {
        b.adminToken(s.get("admin.token"));
      }
      server = b.build();
    } catch (IllegalArgumentException e) {
      // The builder names its field (never a value): say which setting that is.
      String m = e.getMessage();
      for (Map.Entry<String, String> n : SETTING_OF.entrySet()) {
        m = m.replace(n.getKey(), n.getValue());
      }
      throw new ConfigException("invalid http.* or admin.* setting: " + Scrubber.scrub(m));
    }
    try {
      server.start();
    } catch (IllegalStateException e) {
      throw new ConfigException(Scrubber.scrub(e.getMessage()));
    }
    LOG.info("HTTP{} on {}:{}: /metrics, /health{}", server.tls() ? "S" : "", s.require("http.bind"), server.port(),
        s.get("admin.read.token") == null && s.get("admin.token") == null ? " (admin page off: no admin token)"
            : ", admin page at /");
    return server;
  }
}
