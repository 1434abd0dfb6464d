package io.twinbox.micrometer;

import io.micrometer.common.KeyValues;
import io.twinbox.InboxMessage;

/**
 * The default {@link ProcessObservationConvention}. Observation {@value #NAME} (a timer of that
 * name, and {@code twinbox.inbox.handle.active}), contextual name (the span's) {@code <type>
 * process}.
 *
 * <p>Low cardinality (timer tags and span attributes): {@code messaging.operation} = {@code
 * process}, {@code twinbox.consumer} (the inbox's consumer name, {@code none} when not given),
 * {@code twinbox.event.type}, {@code twinbox.aggregate.type} ({@code none} for an unordered event),
 * {@code twinbox.outcome} ({@code success} or {@code error}: the handler threw). High cardinality
 * (span attributes only): {@code messaging.message.id}, {@code twinbox.aggregate.id}, {@code
 * messaging.message.conversation_id} (when set), {@code twinbox.message.origin} (when set).
 */
public class DefaultProcessObservationConvention implements ProcessObservationConvention {
  /** The observation's (and timer's) name. */
  public static final String NAME = "twinbox.inbox.handle";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(ProcessContext context) {
    return context.message().type() + " process";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(ProcessContext context) {
    InboxMessage m = context.message();
    return KeyValues.of("messaging.operation", "process",
        "twinbox.consumer", DefaultPublishObservationConvention.orNone(context.consumer()),
        "twinbox.event.type", m.type(),
        "twinbox.aggregate.type", DefaultPublishObservationConvention.orNone(m.aggregateId() == null ? null
            : m.aggregateType()),
        "twinbox.outcome", context.getError() == null ? "success" : "error");
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(ProcessContext context) {
    InboxMessage m = context.message();
    KeyValues values = KeyValues.of("messaging.message.id", m.id(),
        "twinbox.aggregate.id", DefaultPublishObservationConvention.orNone(m.aggregateId()));
    if (m.correlationId() != null) {
      values = values.and("messaging.message.conversation_id", m.correlationId());
    }
    return m.origin() == null ? values : values.and("twinbox.message.origin", m.origin());
  }
}
