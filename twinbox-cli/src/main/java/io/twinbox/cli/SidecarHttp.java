package io.twinbox.cli;

import io.twinbox.Health;
import io.twinbox.Relay;
import io.twinbox.admin.AdminServer;
import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Settings;
import io.twinbox.spi.OutboxAdminStore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's HTTP side, served by {@link AdminServer}: {@code /metrics}, {@code /health}, and
 * the admin page and API when a token is configured. Mutations go to the audit log (INFO).
 */
final class SidecarHttp {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarHttp.class);
  private static final Logger AUDIT = LoggerFactory.getLogger(AdminServer.AUDIT_LOGGER);

  private SidecarHttp() {}

  static AutoCloseable start(Settings s, OutboxAdminStore admin, Health health, Supplier<String> scrape,
      Relay relay) {
    if (!s.bool("http.enabled")) {
      LOG.info("HTTP is off (http.enabled=false): no /metrics, /health or admin page");
      return () -> {};
    }
    AdminServer server;
    try {
      AdminServer.Builder b = AdminServer.builder(admin)
          .bindAddress(s.require("http.bind"))
          .port(s.intValue("http.port", 0, 65_535))
          .health(health)
          .metrics(scrape)
          .relayStats(relay::stats)
          .auditLog(AUDIT::info);
      if (s.get("admin.read.token") != null) {
        b.readToken(s.get("admin.read.token"));
      }
      if (s.get("admin.token") != null) {
        b.adminToken(s.get("admin.token"));
      }
      server = b.build();
    } catch (IllegalArgumentException e) {
      // The builder names the setting (e.g. a token too short or both tokens equal), never its value.
      throw new ConfigException("invalid http.* or admin.* setting: " + e.getMessage()
          .replace("readToken", "admin.read.token").replace("adminToken", "admin.token"));
    }
    try {
      server.start();
    } catch (IllegalStateException e) {
      throw new ConfigException(e.getMessage());
    }
    LOG.info("HTTP on {}:{}: /metrics, /health{}", s.require("http.bind"), server.port(),
        s.get("admin.read.token") == null && s.get("admin.token") == null ? " (admin page off: no admin token)"
            : ", admin page at /");
    return server;
  }
}
