package io.twinbox.nats.internal;

import io.twinbox.nats.SubjectRouter;
import io.twinbox.spi.OutboxMessage;
import java.util.Locale;

/** Subject names and the default router. Stateless and thread-safe. */
public final class Subjects {
  private Subjects() {}

  public static SubjectRouter byAggregateType(String prefix) {
    String p = validate(prefix);
    return new SubjectRouter() {
      @Override
      public String subjectFor(OutboxMessage m) {
        if (m.aggregateType() == null || m.aggregateType().isBlank()) {
          throw new IllegalArgumentException("the default subject router needs an aggregateType");
        }
        return p + "." + token(m.aggregateType().toLowerCase(Locale.ROOT)) + "." + tokens(m.type());
      }

      @Override
      public String toString() {
        return "SubjectRouter.byAggregateType(" + p + ")";
      }
    };
  }

  /** One token: every character outside {@code [A-Za-z0-9_-]} becomes {@code '-'}. */
  static String token(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
      b.append(legal ? c : '-');
    }
    return b.toString();
  }

  /** Dot-separated tokens, each made legal; empty tokens become {@code '-'}. */
  static String tokens(String s) {
    String[] parts = s.split("\\.", -1);
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < parts.length; i++) {
      b.append(i > 0 ? "." : "").append(parts[i].isEmpty() ? "-" : token(parts[i]));
    }
    return b.toString();
  }

  /**
   * @return {@code subject} when it is a literal subject a publish may use
   * @throws IllegalArgumentException otherwise, with the reason
   */
  public static String validate(String subject) {
    if (subject == null || subject.isBlank()) {
      throw new IllegalArgumentException("subject must not be blank");
    }
    for (String token : subject.split("\\.", -1)) {
      if (token.isEmpty()) {
        throw new IllegalArgumentException("subject '" + subject + "' has an empty token");
      }
      if (token.equals("*") || token.equals(">")) {
        throw new IllegalArgumentException("subject '" + subject + "' contains a wildcard");
      }
    }
    for (int i = 0; i < subject.length(); i++) {
      char c = subject.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new IllegalArgumentException("subject '" + subject.strip() + "' contains whitespace or a control character");
      }
    }
    return subject;
  }
}
