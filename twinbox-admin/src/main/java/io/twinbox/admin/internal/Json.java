package io.twinbox.admin.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.HeldAggregate;
import io.twinbox.Health;
import io.twinbox.OutboxStatus;
import io.twinbox.RelayStats;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The API's JSON shapes, written field by field so that they stay stable whatever the records
 * gain. Durations are milliseconds, instants ISO-8601 UTC.
 */
public final class Json {
  public static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  public static String write(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e); // a tree of plain values: never
    }
  }

  public static ObjectNode error(String message, String field) {
    ObjectNode n = object().put("error", message);
    if (field != null) {
      n.put("field", field);
    }
    return n;
  }

  /** {@code /health}: counts only, no relay names, as it needs no token. */
  public static ObjectNode health(Health.Report report) {
    ObjectNode n = object().put("status", report.up() ? "UP" : "DOWN");
    ArrayNode reasons = n.putArray("reasons");
    report.reasons().forEach(reasons::add);
    OutboxStatus s = report.status();
    if (s == null) {
      n.putNull("outbox");
    } else {
      n.putObject("outbox")
          .put("pending", s.pending())
          .put("retrying", s.retrying())
          .put("failed", s.failed())
          .put("heldAggregates", s.heldAggregates())
          .put("oldestPendingAgeMillis", s.oldestPendingAge().toMillis())
          .put("liveRelays", s.leaseOwners().size())
          .put("unownedPartitions", s.unownedPartitions());
    }
    return n;
  }

  public static ObjectNode status(OutboxStatus s, Throughput.Reading throughput, Role role) {
    ObjectNode n = object()
        .put("pending", s.pending())
        .put("retrying", s.retrying())
        .put("failed", s.failed())
        .put("heldAggregates", s.heldAggregates())
        .put("oldestPendingAgeMillis", s.oldestPendingAge().toMillis())
        .put("unownedPartitions", s.unownedPartitions());
    ArrayNode owners = n.putArray("leaseOwners");
    for (Map.Entry<String, Integer> e : new TreeMap<>(s.leaseOwners()).entrySet()) {
      owners.addObject().put("node", e.getKey()).put("partitions", e.getValue());
    }
    if (throughput == null) {
      n.putNull("relay");
    } else {
      RelayStats r = throughput.stats();
      ObjectNode relay = n.putObject("relay")
          .put("published", r.published())
          .put("retried", r.retried())
          .put("dead", r.dead())
          .put("outages", r.outages())
          .put("partitions", r.partitions())
          .put("windowSeconds", Math.round(throughput.windowSeconds()));
      if (throughput.publishedPerSecond() == null) {
        relay.putNull("publishedPerSecond");
      } else {
        relay.put("publishedPerSecond", Math.round(throughput.publishedPerSecond() * 100) / 100.0);
      }
    }
    n.put("role", role.label());
    n.put("canMutate", role == Role.ADMIN);
    return n;
  }

  public static ObjectNode events(List<StoredEvent> events, int limit) {
    ObjectNode n = object().put("limit", limit);
    ArrayNode list = n.putArray("events");
    for (StoredEvent e : events) {
      event(list.addObject(), e);
    }
    return n;
  }

  /** {@code /api/pending}: one page, and where the next one starts ({@code null}: this was the last). */
  public static ObjectNode pending(List<StoredEvent> events, PendingQuery q) {
    ObjectNode n = events(events, q.limit());
    n.put("olderThanMillis", q.olderThan().toMillis());
    n.put("after", q.afterPosition());
    if (events.size() < q.limit()) {
      n.putNull("next");
    } else {
      n.put("next", events.get(events.size() - 1).position());
    }
    return n;
  }

  /** {@code /api/held}: each held aggregate with the event that holds it. */
  public static ObjectNode held(List<HeldAggregate> held, int limit) {
    ObjectNode n = object().put("limit", limit);
    ArrayNode list = n.putArray("held");
    for (HeldAggregate h : held) {
      ObjectNode a = list.addObject()
          .put("aggregateType", h.aggregateType())
          .put("aggregateId", h.aggregateId())
          .put("reason", h.reason().name())
          .put("since", iso(h.since()));
      event(a.putObject("holding"), h.holding());
    }
    return n;
  }

  /** {@code /api/purge}: what a purge of PUBLISHED rows older than {@code olderThan} would delete. */
  public static ObjectNode purgePreview(String olderThan, Duration age, long published) {
    return object().put("olderThan", olderThan).put("olderThanMillis", age.toMillis()).put("published", published)
        .put("maxBatch", Action.MAX_PURGE_BATCH);
  }

  private static void event(ObjectNode n, StoredEvent e) {
    n.put("position", e.position())
        .put("id", e.id() == null ? null : e.id().toString())
        .put("aggregateType", e.aggregateType())
        .put("aggregateId", e.aggregateId())
        .put("sequence", e.sequence())
        .put("type", e.type())
        .put("version", e.version())
        .put("status", e.status())
        .put("attempts", e.attempts())
        .put("lastError", e.lastError())
        .put("createdAt", iso(e.createdAt()))
        .put("nextAttemptAt", iso(e.nextAttemptAt()));
  }

  /** ISO-8601; {@code null} for none and for the "long ago" of a row due at once (−infinity, year 1970). */
  private static String iso(Instant t) {
    return t == null || t.getEpochSecond() <= 0 ? null : t.toString();
  }
}
