package io.twinbox.admin.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.ParkedAudit;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedSummary;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The JSON shapes of parked messages, field by field; the payload only where asked for. */
final class ParkedJson {
  private ParkedJson() {}

  static ObjectNode list(List<ParkedMessage> messages, List<ParkedSummary> summary, int limit) {
    ObjectNode n = Json.object().put("available", true).put("limit", limit);
    ArrayNode list = n.putArray("messages");
    for (ParkedMessage m : messages) {
      list.add(message(m, false));
    }
    ArrayNode s = n.putArray("summary");
    for (ParkedSummary c : summary) {
      s.addObject().put("consumer", c.consumer()).put("parked", c.parked()).put("replaying", c.replaying())
          .put("oldestParkedAgeMillis", c.oldestParkedAge().toMillis());
    }
    return n;
  }

  static ObjectNode one(ParkedMessage m, List<ParkedAudit> trail) {
    ObjectNode n = Json.object();
    n.set("message", message(m, m.payload() != null));
    ArrayNode audit = n.putArray("audit");
    for (ParkedAudit a : trail) {
      audit.addObject().put("action", a.action()).put("actor", a.actor()).put("at", iso(a.at()))
          .put("detail", a.detail());
    }
    return n;
  }

  static ObjectNode message(ParkedMessage m, boolean withPayload) {
    ObjectNode n = Json.object()
        .put("id", m.id())
        .put("consumer", m.consumer())
        .put("messageId", m.messageId())
        .put("type", m.type())
        .put("version", m.version())
        .put("source", m.source())
        .put("aggregateType", m.aggregateType())
        .put("aggregateId", m.aggregateId())
        .put("sequence", m.sequence())
        .put("reason", m.reason())
        .put("attempts", m.attempts())
        .put("parkedAt", iso(m.parkedAt()))
        .put("correlationId", m.correlationId())
        .put("causationId", m.causationId())
        .put("traceparent", m.traceparent())
        .put("origin", m.origin())
        .put("payloadHash", m.payloadHash())
        .put("state", m.state().name())
        .put("stateAt", iso(m.stateAt()))
        .put("stateBy", m.stateBy())
        .put("payloadStored", m.payloadStored());
    ObjectNode headers = n.putObject("headers");
    for (Map.Entry<String, String> h : new TreeMap<>(m.headers() == null ? Map.<String, String>of() : m.headers())
        .entrySet()) {
      headers.put(h.getKey(), h.getValue());
    }
    if (withPayload) {
      n.put("payload", m.payload());
    }
    return n;
  }

  private static String iso(Instant t) {
    return t == null ? null : t.toString();
  }
}
