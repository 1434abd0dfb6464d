package io.twinbox.internal;

/** Short, safe failure reasons for logs and {@code last_error}. */
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
    return reason.length() <= MAX ? reason : reason.substring(0, MAX - 1) + "…";
  }
}
