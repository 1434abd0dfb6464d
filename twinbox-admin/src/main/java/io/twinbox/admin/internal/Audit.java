package io.twinbox.admin.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.function.Consumer;

/**
 * Writes the audit trail: one line per mutation, refused mutation or failed authentication, saying
 * who (role and remote address — never the token) and what (action, selector, outcome). Thread-safe
 * if the sink is.
 */
public final class Audit {
  private final Consumer<String> sink;

  public Audit(Consumer<String> sink) {
    this.sink = sink;
  }

  public void done(Action a, int affected, Role role, String remote) {
    sink.accept("action=" + a.name() + " selector=" + a.selectorText() + " affected=" + affected + who(role, remote));
  }

  public void failed(Action a, Role role, String remote, String reason) {
    sink.accept("action=" + a.name() + " selector=" + a.selectorText() + " outcome=error reason=" + quote(reason)
        + who(role, remote));
  }

  /** A mutation or payload view of a parked message: {@code what} is built of ids and states only. */
  public void line(String what, Role role, String remote) {
    sink.accept(what + who(role, remote));
  }

  public void refused(String path, int status, Role role, String remote) {
    sink.accept("refused=" + status + " path=" + quote(path) + who(role, remote));
  }

  /** The first request refused (429) because its address failed to authenticate too often. */
  public void limited(String path, String remote, long retryAfterSeconds) {
    sink.accept("refused=429 path=" + quote(path) + " reason=\"too many failed authentications\" retryAfter="
        + retryAfterSeconds + "s" + who(Role.NONE, remote));
  }

  private static String who(Role role, String remote) {
    return " role=" + role.label() + " remote=" + remote;
  }

  /** {@code s} as a JSON string literal: quotes, backslashes and line breaks escaped. */
  public static String quote(String s) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }
}
