package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;

/**
 * The settings of an {@link Outbox}, declared once: {@link Outbox.Builder} validates with them and
 * the starter's {@code twinbox.outbox.*} and the README derive from {@link #CATALOGUE}. Immutable.
 */
public final class OutboxSettings {
  public static final Setting<Integer> MAX_PAYLOAD_BYTES = Setting.integer("maxPayloadBytes").atLeast(1)
      .defaultValue(Outbox.Builder.DEFAULT_MAX_PAYLOAD_BYTES)
      .description("Largest payload in UTF-8 bytes (900 KiB: room for headers under Kafka's 1 MiB); larger is"
          + " refused at write.");
  public static final Setting<Boolean> CAPTURE_TRACE_CONTEXT = Setting.bool("captureTraceContext")
      .defaultValue(true)
      .description("Take traceparent from the current OpenTelemetry span when the event has none.");

  public static final Catalogue<Outbox.Builder> CATALOGUE = Catalogue.<Outbox.Builder>builder("outbox", "Outbox.Builder")
      .add(MAX_PAYLOAD_BYTES, Outbox.Builder::maxPayloadBytes)
      .add(CAPTURE_TRACE_CONTEXT, Outbox.Builder::captureTraceContext)
      .build();

  private OutboxSettings() {}
}
