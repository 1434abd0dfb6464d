package io.twinbox.admin.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.Health;
import io.twinbox.OutboxStatus;
import io.twinbox.RelayStats;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes every request: {@code /health}, {@code /metrics}, the page, and the JSON API. Blocking
 * (the store calls are JDBC), which Jetty runs on its pool threads. Thread-safe.
 */
public final class AdminHandler extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String JSON = "application/json";
  static final int MAX_BODY_BYTES = 16 * 1024;
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  private final OutboxAdminStore admin;
  private final Health health;
  private final Supplier<String> metrics;
  private final Throughput throughput;
  private final Tokens tokens;
  private final Audit audit;
  private final StaticPage page;

  public AdminHandler(OutboxAdminStore admin, Health health, Supplier<String> metrics,
      Supplier<RelayStats> relayStats, Tokens tokens, Consumer<String> auditSink) {
    this.admin = admin;
    this.health = health;
    this.metrics = metrics;
    this.throughput = relayStats == null ? null : new Throughput(relayStats);
    this.tokens = tokens;
    this.audit = new Audit(auditSink);
    this.page = tokens.enabled() ? new StaticPage() : null;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    try {
      if (path.equals("/health")) {
        requireGet(method);
        health(response, callback);
      } else if (path.equals("/metrics")) {
        requireGet(method);
        metrics(response, callback);
      } else if (!tokens.enabled()) {
        throw new ApiError(404, null, "not found");
      } else if (path.startsWith("/api/")) {
        api(path, method, request, response, callback);
      } else {
        requireGet(method);
        StaticPage.Asset asset = page.get(path);
        if (asset == null) {
          throw new ApiError(404, null, "not found");
        }
        pageHeaders(response);
        send(response, callback, 200, asset.contentType(), asset.bytes());
      }
    } catch (ApiError e) {
      if (e.status() == 405) {
        response.getHeaders().put(HttpHeader.ALLOW, path.equals("/api/actions") ? "POST" : "GET");
      }
      if (e.status() == 401) {
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"twinbox\"");
      }
      sendJson(response, callback, e.status(), Json.error(e.getMessage(), e.field()));
    } catch (RuntimeException e) {
      // Logged here with the stack; the caller only learns that it failed, not why (a store error
      // may quote a connection string).
      LOG.warn("admin request {} {} failed", method, path, e);
      sendJson(response, callback, 500, Json.error("internal error; see the server log", null));
    }
    return true;
  }

  private void health(Response response, Callback callback) {
    if (health == null) {
      throw new ApiError(404, null, "health is not configured");
    }
    Health.Report report = health.check();
    noStore(response);
    sendJson(response, callback, report.up() ? 200 : 503, Json.health(report));
  }

  private void metrics(Response response, Callback callback) {
    if (metrics == null) {
      throw new ApiError(404, null, "metrics are not configured");
    }
    String text = metrics.get();
    noStore(response);
    send(response, callback, 200, PROMETHEUS_TEXT, text.getBytes(StandardCharsets.UTF_8));
  }

  private void api(String path, String method, Request request, Response response, Callback callback)
      throws ApiError {
    noStore(response);
    Role role = tokens.roleOf(request.getHeaders().get(HttpHeader.AUTHORIZATION));
    String remote = Request.getRemoteAddr(request);
    boolean mutation = path.equals("/api/actions");
    if (role == Role.NONE) {
      if (mutation) {
        audit.refused(path, 401, role, remote);
      }
      throw new ApiError(401, null, "a valid token is required: Authorization: Bearer <token>");
    }
    switch (path) {
      case "/api/status" -> {
        requireGet(method);
        OutboxStatus s = admin.status();
        sendJson(response, callback, 200, Json.status(s, throughput == null ? null : throughput.read(), role));
      }
      case "/api/events" -> {
        requireGet(method);
        Fields q = Request.extractQueryParameters(request);
        int limit = limit(q.getValue("limit"));
        List<StoredEvent> events = admin.troubled(filter(q, "type"), filter(q, "aggregateType"),
            filter(q, "aggregateId"), limit);
        sendJson(response, callback, 200, Json.events(events, limit));
      }
      case "/api/actions" -> {
        if (!method.equals("POST")) {
          throw new ApiError(405, null, "use POST");
        }
        if (role != Role.ADMIN) {
          audit.refused(path, 403, role, remote);
          throw new ApiError(403, null, "this token may only read; retry and skip need the admin token");
        }
        Action action = Action.parse(body(request));
        int affected;
        try {
          affected = action.name().equals("retry") ? admin.retry(action.selector()) : admin.skip(action.selector());
        } catch (RuntimeException e) {
          audit.failed(action, role, remote, e.getClass().getSimpleName());
          throw e;
        }
        audit.done(action, affected, role, remote);
        ObjectNode answer = Json.object().put("action", action.name());
        answer.set("selector", action.selectorJson());
        answer.put("affected", affected);
        sendJson(response, callback, 200, answer);
      }
      default -> throw new ApiError(404, null, "no such API: GET /api/status, GET /api/events, POST /api/actions");
    }
  }

  private static String filter(Fields q, String name) {
    String v = q.getValue(name);
    if (v == null || v.isBlank()) {
      return null;
    }
    if (v.length() > Action.MAX_NAME_LENGTH) {
      throw ApiError.badRequest(name, "is " + v.length() + " characters, limit " + Action.MAX_NAME_LENGTH);
    }
    return v.strip();
  }

  private static int limit(String v) {
    if (v == null || v.isBlank()) {
      return DEFAULT_LIMIT;
    }
    int n;
    try {
      n = Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw ApiError.badRequest("limit", "must be a whole number from 1 to " + MAX_LIMIT);
    }
    if (n < 1 || n > MAX_LIMIT) {
      throw ApiError.badRequest("limit", "must be from 1 to " + MAX_LIMIT + ", was " + n);
    }
    return n;
  }

  private static String body(Request request) {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith(JSON)) {
      throw new ApiError(415, "Content-Type", "Content-Type must be application/json");
    }
    if (request.getLength() > MAX_BODY_BYTES) {
      throw new ApiError(413, "body", "body is larger than " + MAX_BODY_BYTES + " bytes");
    }
    byte[] bytes;
    try (InputStream in = Content.Source.asInputStream(request)) {
      bytes = in.readNBytes(MAX_BODY_BYTES + 1);
    } catch (java.io.IOException e) {
      throw ApiError.badRequest("body", "could not be read");
    }
    if (bytes.length > MAX_BODY_BYTES) {
      throw new ApiError(413, "body", "body is larger than " + MAX_BODY_BYTES + " bytes");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void requireGet(String method) {
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new ApiError(405, null, "use GET");
    }
  }

  private static void noStore(Response response) {
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
  }

  private static void pageHeaders(Response response) {
    var h = response.getHeaders();
    h.put(HttpHeader.CACHE_CONTROL, "no-cache");
    h.put("Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    h.put("Referrer-Policy", "no-referrer");
  }

  private static void sendJson(Response response, Callback callback, int status, ObjectNode body) {
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    send(response, callback, status, JSON, Json.write(body).getBytes(StandardCharsets.UTF_8));
  }

  private static void send(Response response, Callback callback, int status, String type, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
