package io.twinbox.admin.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A mutation asked for in a {@code POST /api/actions} body: {@code {"action":"retry"|"skip"}} and
 * exactly one selector — {@code "id"}, {@code "aggregateType"} with {@code "aggregateId"}, or
 * {@code "all":true} — or {@code {"action":"purge","olderThan":"7d","batch":1000}}, one bounded
 * batch of PUBLISHED rows (the page repeats it and shows the progress). Parsing is strict: an
 * unknown field, a wrong type or a second selector is a 400 naming the field.
 *
 * @param selector the FAILED events of a retry or skip; {@code null} for a purge
 * @param olderThan the age of the PUBLISHED rows a purge deletes; {@code null} otherwise
 * @param batch the most rows one purge deletes; 0 otherwise
 */
public record Action(String name, EventSelector selector, Duration olderThan, String olderThanText, int batch) {
  public static final int MAX_NAME_LENGTH = 255;
  /** The most PUBLISHED rows one purge request deletes. */
  public static final int MAX_PURGE_BATCH = 10_000;
  static final int DEFAULT_PURGE_BATCH = 1000;
  private static final Set<String> NAMES = Set.of("retry", "skip", "purge");
  private static final Set<String> FIELDS = Set.of("action", "id", "aggregateType", "aggregateId", "all");
  private static final Set<String> PURGE_FIELDS = Set.of("action", "olderThan", "batch");
  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  public static Action parse(String body) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("body", "is not valid JSON");
    }
    if (root == null || !root.isObject()) {
      throw ApiError.badRequest("body", "must be a JSON object");
    }
    String action = text(root, "action", true);
    if (!NAMES.contains(action)) {
      throw ApiError.badRequest("action", "must be \"retry\", \"skip\" or \"purge\"");
    }
    Set<String> allowed = action.equals("purge") ? PURGE_FIELDS : FIELDS;
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw ApiError.badRequest("body", "has an unknown field for " + action + " (allowed: "
            + String.join(", ", allowed.stream().sorted().toList()) + ")");
      }
    }
    if (action.equals("purge")) {
      return purge(root);
    }
    String id = text(root, "id", false);
    String aggregateType = text(root, "aggregateType", false);
    String aggregateId = text(root, "aggregateId", false);
    JsonNode all = root.get("all");
    if (all != null && !all.isBoolean()) {
      throw ApiError.badRequest("all", "must be true or false");
    }
    boolean allFailed = all != null && all.booleanValue();
    int selectors = (id != null ? 1 : 0) + (aggregateType != null || aggregateId != null ? 1 : 0) + (allFailed ? 1 : 0);
    if (selectors != 1) {
      throw ApiError.badRequest("selector",
          "must be exactly one of: id, aggregateType with aggregateId, or all=true");
    }
    if (id != null) {
      if (!UUID_TEXT.matcher(id).matches()) {
        throw ApiError.badRequest("id", "must be a UUID like 0190c3a2-7b1e-7c4d-9a2b-3c4d5e6f7a8b");
      }
      return new Action(action, EventSelector.id(UUID.fromString(id.toLowerCase(Locale.ROOT))), null, null, 0);
    }
    if (aggregateType != null || aggregateId != null) {
      if (aggregateType == null) {
        throw ApiError.badRequest("aggregateType", "is required with aggregateId");
      }
      if (aggregateId == null) {
        throw ApiError.badRequest("aggregateId", "is required with aggregateType");
      }
      return new Action(action, EventSelector.aggregate(aggregateType, aggregateId), null, null, 0);
    }
    return new Action(action, EventSelector.allFailed(), null, null, 0);
  }

  private static Action purge(JsonNode root) {
    String olderThan = text(root, "olderThan", true);
    Duration age = Query.duration("olderThan", olderThan, true);
    int batch = DEFAULT_PURGE_BATCH;
    JsonNode b = root.get("batch");
    if (b != null && !b.isNull()) {
      if (!b.canConvertToInt() || !b.isIntegralNumber() || b.intValue() < 1 || b.intValue() > MAX_PURGE_BATCH) {
        throw ApiError.badRequest("batch", "must be a whole number from 1 to " + MAX_PURGE_BATCH);
      }
      batch = b.intValue();
    }
    return new Action("purge", null, age, olderThan.strip(), batch);
  }

  public boolean isPurge() {
    return selector == null;
  }

  private static String text(JsonNode root, String field, boolean required) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw ApiError.badRequest(field, "is required");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw ApiError.badRequest(field, "must be a string");
    }
    String s = n.textValue();
    if (s.isBlank()) {
      throw ApiError.badRequest(field, "cannot be blank");
    }
    if (s.length() > MAX_NAME_LENGTH) {
      throw ApiError.badRequest(field, "is " + s.length() + " characters, limit " + MAX_NAME_LENGTH);
    }
    return s;
  }

  /** The selector as the API answers it. */
  public ObjectNode selectorJson() {
    ObjectNode n = Json.object();
    if (isPurge()) {
      return n.put("olderThan", olderThanText).put("olderThanMillis", olderThan.toMillis()).put("batch", batch);
    }
    if (selector.id() != null) {
      n.put("id", selector.id().toString());
    } else if (selector.all()) {
      n.put("all", true);
    } else {
      n.put("aggregateType", selector.aggregateType()).put("aggregateId", selector.aggregateId());
    }
    return n;
  }

  /** The selector for an audit line; user text JSON-quoted so it cannot forge a line. */
  public String selectorText() {
    if (isPurge()) {
      return "published-older-than:" + Audit.quote(olderThanText) + " batch=" + batch;
    }
    if (selector.id() != null) {
      return "id:" + selector.id();
    }
    if (selector.all()) {
      return "all-failed";
    }
    return "aggregate:" + Audit.quote(selector.aggregateType()) + "/" + Audit.quote(selector.aggregateId());
  }
}
