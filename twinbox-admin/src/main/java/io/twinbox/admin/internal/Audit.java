package io.twinbox.admin.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.function.Consumer;

/**
 * Writes the audit trail: one line per mutation or refused mutation, saying who (role and remote
 * address — never the token) and what (action, selector, outcome). Thread-safe if the sink is.
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

  public void refused(String path, int status, Role role, String remote) {
    sink.accept("refused=" + status + " path=" + quote(path) + who(role, remote));
  }

  private static String who(Role role, String remote) {
    return " role=" + role.label() + " remote=" + remote;
  }

  /** {@code s} as a JSON string literal: quotes, backslashes and line breaks escaped. */
  public static String quote(String s) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }
}
