package io.twinbox.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.twinbox.Health;
import io.twinbox.cli.internal.Settings;
import io.twinbox.spi.OutboxAdminStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The sidecar's HTTP side: /metrics and /health (interim, until the admin server is merged). */
final class SidecarHttp {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarHttp.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private SidecarHttp() {}

  static AutoCloseable start(Settings s, OutboxAdminStore admin, Health health, Supplier<String> scrape)
      throws IOException {
    if (!s.bool("http.enabled")) {
      LOG.info("HTTP is off (http.enabled=false)");
      return () -> {};
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(s.require("http.bind"),
        s.intValue("http.port", 0, 65_535)), 16);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext("/metrics", ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", scrape.get()));
    server.createContext("/health", ex -> {
      Health.Report r = health.check();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("status", r.up() ? "UP" : "DOWN");
      m.put("reasons", r.reasons());
      reply(ex, r.up() ? 200 : 503, "application/json", JSON.writeValueAsString(m));
    });
    server.start();
    LOG.info("HTTP on {}:{}: /metrics, /health", s.require("http.bind"), server.getAddress().getPort());
    return () -> server.stop(0);
  }

  private static void reply(HttpExchange ex, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(bytes);
    }
  }
}
