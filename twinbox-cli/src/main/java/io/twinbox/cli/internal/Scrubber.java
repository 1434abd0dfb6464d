package io.twinbox.cli.internal;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Defence in depth for "secrets never in output": {@link #install()} replaces {@code System.out}
 * and {@code System.err} with streams that replace every known secret value by {@code ****}, line by
 * line, before it reaches the terminal or a log collector. The CLI's own messages never contain
 * secrets in the first place; this catches a library that echoes one.
 */
public final class Scrubber {
  private static final List<String> SECRETS = new CopyOnWriteArrayList<>();
  private static volatile boolean installed;

  private Scrubber() {}

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

  /** Adds values to hide (values shorter than 3 characters are ignored: they would mangle text). */
  public static void addSecrets(Set<String> values) {
    for (String v : values) {
      if (v != null && v.length() >= 3 && !SECRETS.contains(v)) {
        SECRETS.add(v);
      }
    }
  }

  /** {@code text} with every known secret replaced by {@code ****}. */
  public static String scrub(String text) {
    if (text == null) {
      return null;
    }
    String t = text;
    for (String s : SECRETS) {
      t = t.replace(s, "****");
    }
    return t;
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
