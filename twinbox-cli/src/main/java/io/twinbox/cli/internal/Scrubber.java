package io.twinbox.cli.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place that decides what is secret and hides it, for everything the CLI and the sidecar
 * print: the start-up log, error messages, {@code --json} output, and (through {@link
 * io.twinbox.admin.AdminServer.Builder#redact}) every HTTP answer and audit line.
 *
 * <p>Two layers:
 *
 * <ul>
 *   <li><b>By form</b> ({@link #maskText}): the user-info of any URL ({@code scheme://user:pass@host},
 *       and {@code nats://TOKEN@host} — all user-info counts as secret) and the value of any
 *       {@code name=value} or {@code name="value"} pair whose name looks secret ({@link
 *       #isSecretName}: password, secret, token, credential, JAAS, private or key material such as
 *       {@code ssl.keystore.key} and {@code ssl.truststore.certificates}) become {@code ****}.
 *   <li><b>By value</b> ({@link #addSecrets}, {@link #scrub}): every secret value the settings
 *       hold (and its URL-encoded, URL-decoded and JSON-escaped forms, and each line of a multi-line
 *       value such as a PEM key) is replaced wherever it appears, e.g. in a driver's exception.
 * </ul>
 *
 * <p>{@link #install()} applies both to {@code System.out} and {@code System.err}, line by line,
 * as a second guard behind messages that never contain secrets in the first place. Thread-safe.
 */
public final class Scrubber {
  public static final String MASK = "****";
  /** Shorter values are not replaced by value: they would mangle ordinary text. */
  static final int MIN_SECRET_LENGTH = 3;

  /** Words that make a name secret wherever they appear in it. */
  private static final Pattern SECRET_WORD = Pattern.compile(
      ".*(password|passwd|passphrase|pwd|secret|token|credential|jaas|private|certificate|signature"
          + "|api[._-]?key|access[._-]?key|user[._-]?info).*");
  /** Key material: a name ending in "key" after a word that says which (ssl.keystore.key, sslkey, tls.key). */
  private static final Pattern KEY_MATERIAL = Pattern.compile(
      ".*(keystore|ssl|tls|private|secret|api|access|signing|encryption|client|master)[._-]?key");
  /**
   * {@code name=value}, {@code name = value}, {@code name="value"} or JSON's {@code "name": "value"};
   * an unquoted value ends at a delimiter.
   */
  private static final Pattern PAIR = Pattern.compile("(?<![A-Za-z0-9_.\\-])([A-Za-z][A-Za-z0-9_.\\-]*)"
      + "(\"?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s&;,\"'()\\[\\]{}<>]+)");
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.\\-]*://");

  /** Known secret values, longest first (a secret that contains another is replaced whole). */
  private static volatile List<String> secrets = List.of();
  private static volatile boolean installed;

  private Scrubber() {}

  /** Whether a setting, URL parameter or property with this name holds a secret. */
  public static boolean isSecretName(String name) {
    if (name == null) {
      return false;
    }
    String n = name.toLowerCase(Locale.ROOT);
    return n.equals("pass") || SECRET_WORD.matcher(n).matches() || KEY_MATERIAL.matcher(n).matches();
  }

  /**
   * {@code text} with every URL user-info and every secret-named pair's value replaced by {@code
   * ****}; everything else unchanged.
   */
  public static String maskText(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String t = maskUserInfo(text);
    StringBuilder out = new StringBuilder(t.length());
    int[] last = {0};
    secretPairs(t, (valueStart, valueEnd) -> {
      String value = t.substring(valueStart, valueEnd);
      boolean quoted = value.startsWith("\"") || value.startsWith("'");
      out.append(t, last[0], valueStart).append(quoted ? value.charAt(0) + MASK + value.charAt(0) : MASK);
      last[0] = valueEnd;
    });
    return last[0] == 0 ? t : out.append(t, last[0], t.length()).toString();
  }

  /** Calls {@code onValue} with the bounds of each secret-named pair's value in {@code text}, in order. */
  private static void secretPairs(String text, BiConsumer<Integer, Integer> onValue) {
    Matcher m = PAIR.matcher(text);
    int pos = 0;
    while (pos < text.length() && m.find(pos)) {
      String value = m.group(3);
      boolean colon = m.group(2).contains(":");
      // "name: value" counts only when quoted (JSON); a bare colon is too common in prose and URLs.
      if (!isSecretName(m.group(1)) || colon && !value.startsWith("\"")) {
        pos = m.end(1); // not secret: its "value" may hold a secret pair (a URL's query), look inside
        continue;
      }
      if (!value.equals(MASK) && !value.equals("\"" + MASK + "\"") && !value.equals("'" + MASK + "'")) {
        onValue.accept(m.start(3), m.end(3));
      }
      pos = m.end(3);
    }
  }

  /** Each {@code scheme://userinfo@host}: the user-info, whether user:password or a bare token, masked. */
  private static String maskUserInfo(String text) {
    Matcher m = SCHEME.matcher(text);
    StringBuilder out = null;
    int last = 0;
    while (m.find()) {
      int start = m.end();
      int end = authorityEnd(text, start);
      // A host list (nats://a@h1,b@h2) has one user-info per entry.
      int segment = start;
      while (segment < end) {
        int comma = text.indexOf(',', segment);
        int segmentEnd = comma < 0 || comma > end ? end : comma;
        int at = text.lastIndexOf('@', segmentEnd - 1);
        if (at >= segment && segment >= last && !text.startsWith(MASK + "@", segment)) {
          if (out == null) {
            out = new StringBuilder(text.length());
          }
          out.append(text, last, segment).append(MASK);
          last = at;
        }
        segment = segmentEnd + 1;
      }
    }
    if (out == null) {
      return text;
    }
    return out.append(text, last, text.length()).toString();
  }

  private static int authorityEnd(String text, int from) {
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`'
          || Character.isWhitespace(c)) {
        return i;
      }
    }
    return text.length();
  }

  /**
   * The secret values inside one setting: the whole value when its name is secret (and each line
   * of it, and the secret-named pairs inside it, e.g. the password of a JAAS config); for any value,
   * the user-info of its URLs (the password part, or the whole user-info when it has no colon) and
   * the values of its secret-named parameters.
   */
  public static Set<String> secretsIn(String name, String value) {
    Set<String> s = new LinkedHashSet<>();
    if (value == null || value.isEmpty()) {
      return s;
    }
    if (isSecretName(name)) {
      s.add(value);
      for (String line : value.split("\\R")) {
        if (line.strip().length() >= 8) { // a PEM line; short ones ("-----") would mangle text
          s.add(line.strip());
        }
      }
    }
    secretPairs(value, (start, end) -> s.add(unquote(value.substring(start, end))));
    Matcher scheme = SCHEME.matcher(value);
    while (scheme.find()) {
      int start = scheme.end();
      int end = authorityEnd(value, start);
      for (String entry : value.substring(start, end).split(",")) {
        int at = entry.lastIndexOf('@');
        if (at > 0) {
          String userInfo = entry.substring(0, at);
          int colon = userInfo.indexOf(':');
          s.add(colon < 0 ? userInfo : userInfo.substring(colon + 1));
        }
      }
    }
    Set<String> all = new LinkedHashSet<>();
    for (String v : s) {
      all.add(v);
      try {
        all.add(URLDecoder.decode(v, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // not URL-encoded: the raw form is listed
      }
      all.add(URLEncoder.encode(v, StandardCharsets.UTF_8));
      all.add(new String(JsonStringEncoder.getInstance().quoteAsString(v)));
    }
    all.removeIf(v -> v.length() < MIN_SECRET_LENGTH || v.equals(MASK));
    return all;
  }

  private static String unquote(String v) {
    return v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))
        ? v.substring(1, v.length() - 1) : v;
  }

  /** Wraps {@code System.out} and {@code System.err}; idempotent. */
  public static synchronized void install() {
    if (!installed) {
      // No auto-flush: PrintStream would flush (and so emit) every fragment of a line, and a secret
      // split across two print calls would slip through. Complete lines are written at once.
      LineScrubber out = new LineScrubber(System.out);
      LineScrubber err = new LineScrubber(System.err);
      System.setOut(new PrintStream(out, false, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, false, StandardCharsets.UTF_8));
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        out.drain();
        err.drain();
      }, "twinbox-output-drain"));
      installed = true;
    }
  }

  /** Adds values to hide by value (values shorter than 3 characters are ignored: they would mangle text). */
  public static synchronized void addSecrets(Set<String> values) {
    Set<String> all = new LinkedHashSet<>(secrets);
    for (String v : values) {
      if (v != null && v.length() >= MIN_SECRET_LENGTH) {
        all.add(v);
      }
    }
    secrets = all.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }

  /** {@code text} with every known secret value replaced by {@code ****}, then {@link #maskText}. */
  public static String scrub(String text) {
    if (text == null) {
      return null;
    }
    String t = text;
    for (String s : secrets) {
      t = t.replace(s, MASK);
    }
    return maskText(t);
  }

  /** Buffers a line, scrubs it, writes it on. */
  private static final class LineScrubber extends OutputStream {
    private final PrintStream target;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineScrubber(PrintStream target) {
      this.target = target;
    }

    @Override
    public synchronized void write(int b) {
      line.write(b);
      if (b == '\n') {
        emit();
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    /** Complete lines are already written; a partial line waits for its end (or 8 KiB, or exit). */
    @Override
    public synchronized void flush() {
      if (line.size() >= 8192) {
        emit();
      }
      target.flush();
    }

    synchronized void drain() {
      emit();
      target.flush();
    }

    private void emit() {
      if (line.size() > 0) {
        target.print(scrub(line.toString(StandardCharsets.UTF_8)));
        line.reset();
      }
    }
  }
}
