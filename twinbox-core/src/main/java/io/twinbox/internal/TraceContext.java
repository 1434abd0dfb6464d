package io.twinbox.internal;

/**
 * Reads the current W3C trace context from OpenTelemetry when its API is on the class path.
 * Without it, or without a valid current span, it returns {@code null}.
 */
public final class TraceContext {
  private static final boolean OTEL_PRESENT = present("io.opentelemetry.api.trace.Span");

  private TraceContext() {}

  public static String currentTraceparent() {
    return OTEL_PRESENT ? OtelTraceparent.current() : null;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, TraceContext.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
