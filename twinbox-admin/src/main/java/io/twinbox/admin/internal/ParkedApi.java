package io.twinbox.admin.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedState;
import io.twinbox.TwinboxAdmin;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.eclipse.jetty.util.Fields;

/**
 * The parked inbox messages in the JSON API: {@code GET /api/parked} (filtered list and the
 * per-consumer summary), {@code GET /api/parked/<id>} (one, its audit trail; the payload only with
 * {@code ?payload=true} and the admin token), {@code POST /api/parked/actions} ({@code replay} or
 * {@code discard} of one id, admin token). Same rules as the outbox's: strict input, a 400 naming
 * the field, an audit line per mutation and per payload shown.
 */
final class ParkedApi {
  static final String PREFIX = "/api/parked";
  private static final Set<String> ACTION_FIELDS = Set.of("action", "id");

  private final TwinboxAdmin admin;
  private final Audit audit;

  ParkedApi(TwinboxAdmin admin, Audit audit) {
    this.admin = admin;
    this.audit = audit;
  }

  static boolean handles(String path) {
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  /** The answer (status 200) to a request on a path {@link #handles} accepts. */
  ObjectNode handle(String path, String method, Role role, String remote, Fields query, Supplier<String> body) {
    if (path.equals(PREFIX + "/actions")) {
      if (!method.equals("POST")) {
        throw new ApiError(405, null, "use POST");
      }
      if (role != Role.ADMIN) {
        audit.refused(path, 403, role, remote);
        throw new ApiError(403, null, "this token may only read; replay and discard need the admin token");
      }
      return act(body.get(), role, remote);
    }
    AdminHandler.requireGet(method);
    if (path.equals(PREFIX)) {
      if (!admin.hasParkedMessages()) {
        ObjectNode n = Json.object().put("available", false);
        n.putArray("messages");
        n.putArray("summary");
        return n;
      }
      ParkedFilter f = filter(query);
      return ParkedJson.list(admin.parked(f), admin.parkedSummary(), f.limit());
    }
    long id = id(path.substring(PREFIX.length() + 1));
    boolean payload = payloadWanted(query.getValue("payload"));
    if (payload && role != Role.ADMIN) {
      audit.refused(path, 403, role, remote);
      throw new ApiError(403, "payload", "payload is shown to the admin token only");
    }
    available();
    ParkedMessage m = call(() -> admin.parkedMessage(id, payload));
    if (payload) {
      audit.line("action=show-payload parked=" + id, role, remote);
    }
    return ParkedJson.one(m, admin.parkedAudit(id));
  }

  private ObjectNode act(String body, Role role, String remote) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("body", "is not valid JSON");
    }
    if (root == null || !root.isObject()) {
      throw ApiError.badRequest("body", "must be a JSON object");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      if (!ACTION_FIELDS.contains(it.next())) {
        throw ApiError.badRequest("body", "has an unknown field (allowed: action, id)");
      }
    }
    JsonNode a = root.get("action");
    if (a == null || !a.isTextual() || !(a.textValue().equals("replay") || a.textValue().equals("discard"))) {
      throw ApiError.badRequest("action", "must be \"replay\" or \"discard\"");
    }
    String action = a.textValue();
    JsonNode i = root.get("id");
    if (i == null || !i.isIntegralNumber() || !i.canConvertToLong() || i.longValue() < 1) {
      throw ApiError.badRequest("id", "must be the number of a parked message (a whole number >= 1)");
    }
    long id = i.longValue();
    available();
    String by = "admin-page@" + remote;
    ParkedMessage m;
    try {
      m = action.equals("replay") ? admin.replayParked(id, by) : admin.discardParked(id, by);
    } catch (ParkedMessageException e) {
      audit.line("action=" + action + " parked=" + id + " outcome=refused problem=" + e.problem(), role, remote);
      throw refused(e);
    } catch (RuntimeException e) {
      audit.line("action=" + action + " parked=" + id + " outcome=error reason="
          + Audit.quote(e.getClass().getSimpleName()), role, remote);
      throw e;
    }
    audit.line("action=" + action + " parked=" + id + " state=" + m.state(), role, remote);
    ObjectNode n = Json.object().put("action", action).put("id", id);
    n.set("message", ParkedJson.message(m, false));
    return n;
  }

  private void available() {
    if (!admin.hasParkedMessages()) {
      throw new ApiError(404, null, "this store keeps no parked messages");
    }
  }

  private static ParkedMessage call(Supplier<ParkedMessage> op) {
    try {
      return op.get();
    } catch (ParkedMessageException e) {
      throw refused(e);
    }
  }

  /** Unknown: 404; a state that forbids it: 409. The message names the id and the state, no content. */
  private static ApiError refused(ParkedMessageException e) {
    int status = e.problem() == ParkedMessageException.Problem.NOT_FOUND ? 404 : 409;
    return new ApiError(status, "id", e.getMessage());
  }

  private static long id(String text) {
    if (text.isEmpty() || text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')
        || Long.parseLong(text) < 1) {
      throw ApiError.badRequest("id", "must be the number of a parked message (a whole number >= 1)");
    }
    return Long.parseLong(text);
  }

  private static boolean payloadWanted(String v) {
    if (v == null || v.equals("false")) {
      return false;
    }
    if (v.equals("true")) {
      return true;
    }
    throw ApiError.badRequest("payload", "must be true or false");
  }

  static ParkedFilter filter(Fields q) {
    String state = Query.filter(q, "state");
    ParkedFilter f = state == null || state.equals("open") ? ParkedFilter.open() : ParkedFilter.any();
    if (state != null && !state.equals("open") && !state.equals("all")) {
      try {
        f = f.states(EnumSet.of(ParkedState.valueOf(state.toUpperCase(Locale.ROOT))));
      } catch (IllegalArgumentException e) {
        throw ApiError.badRequest("state", "must be open, all, parked, replaying, replayed or discarded");
      }
    }
    String aggregateType = Query.filter(q, "aggregateType");
    String aggregateId = Query.filter(q, "aggregateId");
    if (aggregateId != null && aggregateType == null) {
      throw ApiError.badRequest("aggregateId", "needs aggregateType");
    }
    String age = Query.filter(q, "olderThan");
    Duration olderThan = age == null ? null : Query.duration("olderThan", age, false);
    return f.consumer(Query.filter(q, "consumer")).reasonContains(Query.filter(q, "reason")).olderThan(olderThan)
        .aggregate(aggregateType, aggregateId).limit(Query.limit(q));
  }
}
