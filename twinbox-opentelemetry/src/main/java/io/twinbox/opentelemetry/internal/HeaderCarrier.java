package io.twinbox.opentelemetry.internal;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Map;

/** Reads and writes trace context in a message's string headers. Stateless and thread-safe. */
public final class HeaderCarrier {
  /** Writes into a mutable map, replacing a header of the same name. */
  public static final TextMapSetter<Map<String, String>> SETTER = (carrier, key, value) -> {
    if (carrier != null) {
      carrier.put(key, value);
    }
  };

  /** Reads a header by its exact name, else ignoring case (some bindings change the case). */
  public static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      if (carrier == null) {
        return null;
      }
      String v = carrier.get(key);
      if (v != null) {
        return v;
      }
      for (Map.Entry<String, String> e : carrier.entrySet()) {
        if (e.getKey().equalsIgnoreCase(key)) {
          return e.getValue();
        }
      }
      return null;
    }
  };

  private HeaderCarrier() {}

  /**
   * The context that a stored W3C {@code traceparent} stands for, on top of {@code base}; {@code base}
   * itself when there is none or it is malformed. Always read with the W3C format, whatever the
   * application's propagators: that is the format Twinbox stores.
   */
  public static Context fromTraceparent(Context base, String traceparent) {
    if (traceparent == null || traceparent.isEmpty()) {
      return base;
    }
    return W3CTraceContextPropagator.getInstance().extract(base, Map.of("traceparent", traceparent), GETTER);
  }

  /**
   * The context that {@code headers} carry, read with {@code propagator} (the application's, e.g.
   * W3C trace context and baggage); when they carry no valid span context, the stored
   * {@code fallbackTraceparent} (the context at write time) is the parent; with neither, the root.
   */
  public static Context extract(TextMapPropagator propagator, Map<String, String> headers,
      String fallbackTraceparent) {
    Context extracted = propagator.extract(Context.root(), headers, GETTER);
    return Span.fromContext(extracted).getSpanContext().isValid()
        ? extracted
        : fromTraceparent(extracted, fallbackTraceparent);
  }
}
