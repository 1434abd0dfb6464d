package io.twinbox.bench.wal;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A sampling profile of the WAL relay's two threads: every {@code periodMillis} the stacks of the
 * stream thread ({@code twinbox-wal-stream}) and of the replication reader ({@code
 * twinbox-wal-reader-*}). A stream sample is filed under its phase — the {@code WalStream} method
 * called by {@code run} (read, publish, complete, sweep, settle, confirm) — and the innermost
 * Twinbox or driver frame; a reader sample under its innermost frame of Twinbox, pgjdbc or the JDK's
 * socket and park calls.
 */
final class WalSampler implements AutoCloseable {
  private final long periodMillis;
  private final Map<String, Long> stream = new TreeMap<>();
  private final Map<String, Long> reader = new TreeMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long samples;

  WalSampler(long periodMillis) {
    this.periodMillis = periodMillis;
    this.thread = new Thread(this::loop, "bench-wal-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    while (running) {
      try {
        TimeUnit.MILLISECONDS.sleep(periodMillis);
      } catch (InterruptedException e) {
        return;
      }
      Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
      synchronized (this) {
        samples++;
        all.forEach((t, st) -> {
          if (t.getName().equals("twinbox-wal-stream")) {
            stream.merge(phase(st) + " @ " + twinboxFrame(st) + " > " + innermost(st), 1L, Long::sum);
          } else if (t.getName().startsWith("twinbox-wal-reader-")) {
            reader.merge(twinboxFrame(st) + " > " + innermost(st), 1L, Long::sum);
          }
        });
      }
    }
  }

  /** The WalStream method right below {@code WalStream.run}, with the one below it when that is {@code publish}. */
  static String phase(StackTraceElement[] st) {
    for (int i = st.length - 1; i > 0; i--) {
      if (st[i].getClassName().endsWith(".WalStream") && st[i].getMethodName().equals("run")) {
        String p = st[i - 1].getClassName().endsWith(".WalStream") ? st[i - 1].getMethodName() : "run";
        if (i >= 2 && st[i - 2].getClassName().endsWith(".WalStream")) {
          p += "/" + st[i - 2].getMethodName();
        }
        return p;
      }
    }
    return "outside-session";
  }

  /** The innermost frame of Twinbox's own code (what the thread is doing, in Twinbox's terms). */
  static String twinboxFrame(StackTraceElement[] st) {
    for (StackTraceElement f : st) {
      String c = f.getClassName();
      if (c.startsWith("io.twinbox.")) {
        return c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
      }
    }
    return "-";
  }

  static String innermost(StackTraceElement[] st) {
    for (StackTraceElement f : st) {
      String c = f.getClassName();
      if (c.startsWith("io.twinbox.") || c.startsWith("org.postgresql.") || c.startsWith("java.util.concurrent.locks")
          || c.startsWith("sun.nio.ch") || c.startsWith("java.net") || c.startsWith("org.apache.kafka")) {
        return c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
      }
    }
    return st.length == 0 ? "no-stack" : st[0].getClassName() + "." + st[0].getMethodName();
  }

  /** The profile: per thread, the share of samples of each state, largest first. */
  synchronized String summary() {
    return "samples " + samples + "; stream " + top(stream) + "; reader " + top(reader);
  }

  private String top(Map<String, Long> m) {
    long total = m.values().stream().mapToLong(Long::longValue).sum();
    return m.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(14)
        .map(e -> e.getKey() + " " + Math.round(1000.0 * e.getValue() / Math.max(1, total)) / 10.0 + "%")
        .collect(Collectors.joining(", ", "{", "}"));
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
