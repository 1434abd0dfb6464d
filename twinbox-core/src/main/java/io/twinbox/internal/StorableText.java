package io.twinbox.internal;

/**
 * Makes text storable in any supported database: PostgreSQL refuses U+0000 in {@code text} and
 * {@code \u0000} in {@code jsonb}, and no UTF-8 column holds an unpaired surrogate. NUL becomes
 * U+2400 (SYMBOL FOR NULL, visible and one character long, so lengths do not change), an unpaired
 * surrogate becomes U+FFFD; clipping never splits a surrogate pair. Stateless.
 */
public final class StorableText {
  /** What a NUL becomes. */
  public static final char NUL_SYMBOL = '\u2400';

  private StorableText() {}

  /** True when {@code s} holds no NUL and no unpaired surrogate. */
  public static boolean isClean(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        return false;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** True when {@code s} holds a NUL. */
  public static boolean hasNul(String s) {
    return s.indexOf('\u0000') >= 0;
  }

  /** {@code s} with NUL and unpaired surrogates replaced; {@code s} itself when clean; null stays null. */
  public static String clean(String s) {
    if (s == null || isClean(s)) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        out.append(NUL_SYMBOL);
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        out.append(c).append(s.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append('\uFFFD');
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** {@link #clean} clipped to at most {@code max} characters, at a code point boundary. */
  public static String clip(String s, int max) {
    String c = clean(s);
    if (c == null || c.length() <= max) {
      return c;
    }
    int end = Character.isLowSurrogate(c.charAt(max)) ? max - 1 : max;
    return c.substring(0, end);
  }

  /** A reason for a {@code reason} or {@code last_error} column: cleaned, and clipped with an ellipsis. */
  public static String reason(String s) {
    String c = clean(s == null ? "unknown" : s);
    return c.length() <= InboxColumns.REASON ? c : clip(c, InboxColumns.REASON - 1) + "…";
  }
}
