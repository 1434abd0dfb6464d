package io.twinbox.micrometer;

import io.micrometer.common.KeyValues;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import java.util.Locale;

/**
 * The default {@link PublishObservationConvention}. Observation {@value #NAME} (a timer of that
 * name, and {@code twinbox.relay.send.active}), contextual name (the span's) {@code <type> send}.
 *
 * <p>Low cardinality (timer tags and span attributes): {@code messaging.system} (the transport's
 * name), {@code messaging.operation} = {@code send}, {@code twinbox.event.type}, {@code
 * twinbox.aggregate.type} ({@code none} for an unordered event), {@code twinbox.outcome} ({@code
 * acked}, {@code retry}, {@code rejected}, {@code unavailable}, or {@code error} when the send threw).
 * High cardinality (span attributes only): {@code messaging.message.id}, {@code
 * twinbox.aggregate.id}, {@code messaging.message.conversation_id} (the correlation id, when set),
 * {@code twinbox.publish.attempt}.
 */
public class DefaultPublishObservationConvention implements PublishObservationConvention {
  /** The observation's (and timer's) name. */
  public static final String NAME = "twinbox.relay.send";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(PublishContext context) {
    return context.message().type() + " send";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(PublishContext context) {
    OutboxMessage m = context.message();
    PublishOutcome o = context.outcome();
    String outcome = o != null ? o.kind().name().toLowerCase(Locale.ROOT) : context.getError() != null ? "error" : "none";
    return KeyValues.of("messaging.system", context.transport(), "messaging.operation", "send",
        "twinbox.event.type", m.type(), "twinbox.aggregate.type", orNone(m.aggregateId() == null ? null : m.aggregateType()),
        "twinbox.outcome", outcome);
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(PublishContext context) {
    OutboxMessage m = context.message();
    KeyValues values = KeyValues.of("messaging.message.id", String.valueOf(m.id()),
        "twinbox.aggregate.id", orNone(m.aggregateId()), "twinbox.publish.attempt", String.valueOf(m.attempts() + 1));
    return m.correlationId() == null ? values : values.and("messaging.message.conversation_id", m.correlationId());
  }

  static String orNone(String value) {
    return value == null || value.isEmpty() ? "none" : value;
  }
}
