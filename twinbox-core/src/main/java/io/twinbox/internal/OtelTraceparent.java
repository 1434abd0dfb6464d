package io.twinbox.internal;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/** Loaded only when the OpenTelemetry API is present (see {@link TraceContext}). */
final class OtelTraceparent {
  private OtelTraceparent() {}

  static String current() {
    SpanContext ctx = Span.current().getSpanContext();
    if (!ctx.isValid()) {
      return null;
    }
    return "00-" + ctx.getTraceId() + "-" + ctx.getSpanId() + "-" + ctx.getTraceFlags().asHex();
  }
}
