package io.twinbox.spi;

/**
 * Text that came from outside — a row's aggregate ids, types and {@code last_error}, a message's
 * id, type and origin off the wire, relay names — made safe to print on a terminal or in a log
 * line (the CLI's tables, every log line of core that names such a value): control characters (ESC, BEL, CR, backspace …), Unicode format characters (the
 * bidirectional overrides that reorder what is shown) and line separators are written as visible
 * escapes — {@code \x1b}, {@code \n}, and <code>&#92;u202e</code> for U+202E — so that a row can
 * neither clear the screen, move the cursor nor fake output. {@code --json} needs none of this: JSON escapes them itself.
 */
public final class Printable {
  private Printable() {}

  /** {@code text} with every control and format character escaped; null stays null. */
  public static String of(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder b = null;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int n = Character.charCount(cp);
      String escape = escape(cp);
      if (escape != null && b == null) {
        b = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (b != null) {
        if (escape != null) {
          b.append(escape);
        } else {
          b.appendCodePoint(cp);
        }
      }
      i += n;
    }
    return b == null ? text : b.toString();
  }

  private static String escape(int cp) {
    switch (cp) {
      case '\n':
        return "\\n";
      case '\r':
        return "\\r";
      case '\t':
        return "\\t";
      default:
        break;
    }
    int type = Character.getType(cp);
    boolean hidden = type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE;
    if (!hidden) {
      return null;
    }
    return cp <= 0xFF ? String.format("\\x%02x", cp) : String.format("\\u%04x", cp);
  }
}
