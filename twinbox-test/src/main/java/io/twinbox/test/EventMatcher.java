package io.twinbox.test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.twinbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which published event a test means: its type, and optionally its aggregate and payload. Payloads
 * are compared as JSON, so key order and whitespace do not matter. Immutable and thread-safe; each
 * method returns a new matcher.
 *
 * <pre>{@code
 * EventMatcher.type("OrderCreated").aggregate("Order", orderId).payloadAt("/amount", "42.00")
 * }</pre>
 */
public final class EventMatcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Part(String description, Predicate<OutboxMessage> test) {}

  private final List<Part> parts;

  private EventMatcher(List<Part> parts) {
    this.parts = List.copyOf(parts);
  }

  /** Events of type {@code type}. */
  public static EventMatcher type(String type) {
    Objects.requireNonNull(type, "type cannot be null");
    return new EventMatcher(List.of(new Part("type=" + type, m -> type.equals(m.type()))));
  }

  /** Also: about the aggregate {@code aggregateType}/{@code aggregateId}. */
  public EventMatcher aggregate(String aggregateType, Object aggregateId) {
    String id = String.valueOf(Objects.requireNonNull(aggregateId, "aggregateId cannot be null"));
    return with("aggregate=" + aggregateType + "/" + id,
        m -> Objects.equals(aggregateType, m.aggregateType()) && id.equals(m.aggregateId()));
  }

  /** Also: whose payload equals {@code json} as JSON. */
  public EventMatcher payloadJson(String json) {
    JsonNode expected = parse(json, "payloadJson");
    return with("payload=" + expected, m -> expected.equals(parseOrNull(m.payload())));
  }

  /**
   * Also: whose payload has {@code expected} at the JSON pointer {@code pointer} (e.g.
   * {@code "/amount"}); text and numbers compare by their text.
   */
  public EventMatcher payloadAt(String pointer, Object expected) {
    String want = String.valueOf(expected);
    return with("payload" + pointer + "=" + want, m -> {
      JsonNode root = parseOrNull(m.payload());
      JsonNode at = root == null ? null : root.at(pointer);
      return at != null && !at.isMissingNode() && want.equals(at.isValueNode() ? at.asText() : at.toString());
    });
  }

  /** Also: anything else about the message. {@code description} names it in failure messages. */
  public EventMatcher and(String description, Predicate<OutboxMessage> test) {
    return with(description, test);
  }

  /** Whether {@code message} is one this matcher means. */
  public boolean matches(OutboxMessage message) {
    return parts.stream().allMatch(p -> p.test().test(message));
  }

  private EventMatcher with(String description, Predicate<OutboxMessage> test) {
    List<Part> more = new ArrayList<>(parts);
    more.add(new Part(description, test));
    return new EventMatcher(more);
  }

  private static JsonNode parse(String json, String what) {
    try {
      return JSON.readTree(Objects.requireNonNull(json, what + " cannot be null"));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(what + " must be JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static JsonNode parseOrNull(String json) {
    try {
      return json == null ? null : JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** What the matcher expects, e.g. {@code type=OrderCreated, aggregate=Order/42}. */
  @Override
  public String toString() {
    return String.join(", ", parts.stream().map(Part::description).toList());
  }
}
