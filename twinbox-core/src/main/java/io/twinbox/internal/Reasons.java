package io.twinbox.internal;

import io.twinbox.spi.Printable;

/**
 * Short, safe failure reasons for logs and {@code last_error}: clipped, and with control characters
 * written visibly ({@link Printable}) — an exception's message often quotes what arrived from the wire.
 */
public final class Reasons {
  public static final int MAX = 1000;

  private Reasons() {}

  public static String of(Throwable t) {
    if (t == null) {
      return "unknown";
    }
    String msg = t.getMessage();
    return clip(t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg));
  }

  public static String clip(String reason) {
    if (reason == null) {
      return "unknown";
    }
    String printable = Printable.of(reason);
    return printable.length() <= MAX ? printable : printable.substring(0, MAX - 1) + "…";
  }
}
