package io.twinbox.admin.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.Health;
import io.twinbox.OutboxStatus;
import io.twinbox.RelayStats;
import io.twinbox.StoredEvent;
import io.twinbox.TwinboxAdmin;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
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
  private static final long DISCARD_LIMIT_BYTES = 1024 * 1024;
  private static final String BODY_READ = AdminHandler.class.getName() + ".bodyRead";

  private final TwinboxAdmin admin;
  private final HealthCache health;
  private final Supplier<String> metrics;
  private final Throughput throughput;
  private final Tokens tokens;
  private final AuthThrottle throttle;
  private final Audit audit;
  private final UnaryOperator<String> redact;
  private final StaticPage page;
  private final ParkedApi parked;

  /**
   * @param health the cached {@code /health} verdict, or null for none (404)
   * @param redact applied to every text answer (JSON, metrics) and audit line before it leaves
   */
  public AdminHandler(TwinboxAdmin admin, HealthCache health, Supplier<String> metrics,
      Supplier<RelayStats> relayStats, Tokens tokens, AuthThrottle throttle, Consumer<String> auditSink,
      UnaryOperator<String> redact) {
    this.admin = admin;
    this.health = health;
    this.metrics = metrics;
    this.throughput = relayStats == null ? null : new Throughput(relayStats);
    this.tokens = tokens;
    this.throttle = throttle;
    this.redact = redact;
    this.audit = new Audit(line -> auditSink.accept(redact.apply(line)));
    this.page = tokens.enabled() ? new StaticPage() : null;
    this.parked = new ParkedApi(admin, audit);
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
      closeIfBodyUnread(request, response);
      if (e.status() == 405) {
        response.getHeaders().put(HttpHeader.ALLOW, path.endsWith("/actions") ? "POST" : "GET");
      }
      if (e.status() == 401) {
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"twinbox\"");
      }
      if (e.retryAfterSeconds() > 0) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
      }
      sendJson(response, callback, e.status(), Json.error(e.getMessage(), e.field()));
    } catch (RuntimeException e) {
      // Logged here with the stack; the caller only learns that it failed, not why (a store error
      // may quote a connection string).
      LOG.warn("admin request {} {} failed", method, path, e);
      closeIfBodyUnread(request, response);
      sendJson(response, callback, 500, Json.error("internal error; see the server log", null));
    }
    return true;
  }

  private void health(Response response, Callback callback) {
    if (health == null) {
      throw new ApiError(404, null, "health is not configured");
    }
    Health.Report report = health.get();
    noStore(response);
    sendJson(response, callback, report.up() ? 200 : 503, Json.health(report));
  }

  private void metrics(Response response, Callback callback) {
    if (metrics == null) {
      throw new ApiError(404, null, "metrics are not configured");
    }
    String text = redact.apply(metrics.get());
    noStore(response);
    send(response, callback, 200, PROMETHEUS_TEXT, text.getBytes(StandardCharsets.UTF_8));
  }

  private void api(String path, String method, Request request, Response response, Callback callback)
      throws ApiError {
    noStore(response);
    String remote = Request.getRemoteAddr(request);
    // Before the token is looked at: an address that failed too often may not even try.
    AuthThrottle.Decision allowed = throttle.check(remote);
    if (!allowed.allowed()) {
      if (allowed.firstRefusal()) {
        audit.limited(path, remote, allowed.retryAfterSeconds());
      }
      throw new ApiError(429, null, "too many failed authentications from this address; retry in "
          + allowed.retryAfterSeconds() + " s", allowed.retryAfterSeconds());
    }
    Role role = tokens.roleOf(request.getHeaders().get(HttpHeader.AUTHORIZATION));
    if (role == Role.NONE) {
      throttle.failed(remote);
      audit.refused(path, 401, role, remote);
      throw new ApiError(401, null, "a valid token is required: Authorization: Bearer <token>");
    }
    if (ParkedApi.handles(path)) {
      sendJson(response, callback, 200,
          parked.handle(path, method, role, remote, Request.extractQueryParameters(request), () -> body(request)));
      return;
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
        int limit = Query.limit(q);
        List<StoredEvent> events = admin.failed(Query.filter(q, "type"), Query.filter(q, "aggregateType"),
            Query.filter(q, "aggregateId"), limit);
        sendJson(response, callback, 200, Json.events(events, limit));
      }
      case "/api/held" -> {
        requireGet(method);
        Fields q = Request.extractQueryParameters(request);
        int limit = Query.limit(q);
        sendJson(response, callback, 200,
            Json.held(admin.heldAggregates(Query.filter(q, "aggregateType"), limit), limit));
      }
      case "/api/pending" -> {
        requireGet(method);
        PendingQuery q = Query.pending(Request.extractQueryParameters(request));
        sendJson(response, callback, 200, Json.pending(admin.pending(q), q));
      }
      case "/api/purge" -> {
        requireGet(method);
        String text = Query.filter(Request.extractQueryParameters(request), "olderThan");
        if (text == null) {
          throw ApiError.badRequest("olderThan", "is required: " + Query.DURATION_FORMS);
        }
        Duration age = Query.duration("olderThan", text, true);
        sendJson(response, callback, 200, Json.purgePreview(text, age, admin.countPublished(age)));
      }
      case "/api/actions" -> {
        if (!method.equals("POST")) {
          throw new ApiError(405, null, "use POST");
        }
        if (role != Role.ADMIN) {
          audit.refused(path, 403, role, remote);
          throw new ApiError(403, null, "this token may only read; retry, skip and purge need the admin token");
        }
        Action action = Action.parse(body(request));
        int affected;
        try {
          affected = switch (action.name()) {
            case "retry" -> admin.retry(action.selector());
            case "skip" -> admin.skip(action.selector());
            default -> admin.purgePublished(action.olderThan(), action.batch());
          };
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
      default -> throw new ApiError(404, null, "no such API: GET /api/status, GET /api/events, GET /api/held,"
          + " GET /api/pending, GET /api/purge, POST /api/actions, GET /api/parked, GET /api/parked/<id>,"
          + " POST /api/parked/actions");
    }
  }

  /**
   * A request refused before its body was read (no token, 403, 429, 415 …) leaves that body on the
   * connection; Jetty then drops the connection after the answer, and a client that reuses it
   * for its next request gets no answer at all (seen over TLS, where the body arrives in a record
   * of its own). Saying {@code Connection: close} makes the client open a fresh one instead —
   * cheaper for an unauthenticated caller than reading its body.
   */
  private static void closeIfBodyUnread(Request request, Response response) {
    boolean hasBody = request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (hasBody && request.getAttribute(BODY_READ) == null && !response.isCommitted()) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
  }

  private static String body(Request request) {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith(JSON)) {
      throw new ApiError(415, "Content-Type", "Content-Type must be application/json");
    }
    byte[] bytes;
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (request.getLength() > MAX_BODY_BYTES) {
        throw tooLarge(request, in);
      }
      bytes = in.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        throw tooLarge(request, in);
      }
    } catch (java.io.IOException e) {
      throw ApiError.badRequest("body", "could not be read");
    }
    request.setAttribute(BODY_READ, Boolean.TRUE);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * A body over the limit is answered 413. A moderately larger one is read and thrown away first:
   * closing the connection on unread bytes makes the kernel reset it, and the client then loses the
   * 413 it was sent (it sees "no bytes"). Anything beyond {@link #DISCARD_LIMIT_BYTES} is not read.
   */
  private static ApiError tooLarge(Request request, InputStream in) throws java.io.IOException {
    if (request.getLength() <= DISCARD_LIMIT_BYTES) {
      byte[] buffer = new byte[8192];
      long read = 0;
      int n;
      while (read <= DISCARD_LIMIT_BYTES && (n = in.read(buffer)) >= 0) {
        read += n;
      }
      if (read <= DISCARD_LIMIT_BYTES) {
        request.setAttribute(BODY_READ, Boolean.TRUE);
      }
    }
    return new ApiError(413, "body", "body is larger than " + MAX_BODY_BYTES + " bytes");
  }

  static void requireGet(String method) {
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

  private void sendJson(Response response, Callback callback, int status, ObjectNode body) {
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    send(response, callback, status, JSON, redact.apply(Json.write(body)).getBytes(StandardCharsets.UTF_8));
  }

  private static void send(Response response, Callback callback, int status, String type, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
