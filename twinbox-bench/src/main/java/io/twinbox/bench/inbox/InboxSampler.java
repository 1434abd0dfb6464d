package io.twinbox.bench.inbox;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Samples the stack of the inbox consumer's thread ({@code twinbox-kafka-inbox-*}) every few ms
 * and files each sample under what it is doing: the innermost Twinbox frame, and below it whether
 * the thread waits for PostgreSQL (socket read in the driver), for Kafka, or runs on the CPU. The
 * same information as repeated {@code jcmd Thread.print}, summed; used to explain the ratios.
 */
final class InboxSampler implements AutoCloseable {
  private final Map<String, Long> states = new TreeMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long samples;

  InboxSampler(long periodMillis) {
    thread = new Thread(() -> {
      while (running) {
        try {
          TimeUnit.MILLISECONDS.sleep(periodMillis);
        } catch (InterruptedException e) {
          return;
        }
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
          if (e.getKey().getName().matches("twinbox-[a-z]+-inbox-.*")) {
            synchronized (this) {
              samples++;
              states.merge(classify(e.getValue()), 1L, Long::sum);
            }
          }
        }
      }
    }, "bench-inbox-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  static String classify(StackTraceElement[] stack) {
    String where = "other";
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      if (c.startsWith("io.twinbox.bench.inbox.")) {
        where = "handler (bench)";
        break;
      }
      if (c.startsWith("io.twinbox.") && !c.contains("$")) {
        where = c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
        break;
      }
      if (c.startsWith("io.twinbox.")) {
        where = c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
        break;
      }
    }
    String top = stack.length == 0 ? "" : stack[0].getClassName();
    String kind;
    boolean inPg = false;
    boolean inKafka = false;
    for (StackTraceElement f : stack) {
      inPg |= f.getClassName().startsWith("org.postgresql.");
      inKafka |= f.getClassName().startsWith("org.apache.kafka.");
    }
    if (inPg && (top.startsWith("sun.nio") || top.startsWith("java.net") || top.startsWith("sun.security")
        || top.contains("SocketDispatcher") || top.contains("NioSocketImpl") || top.startsWith("java.io"))) {
      kind = "waiting for PostgreSQL";
    } else if (inPg) {
      kind = "JDBC driver CPU";
    } else if (inKafka) {
      kind = "Kafka client";
    } else {
      kind = "CPU";
    }
    return where + " / " + kind;
  }

  /** Share of samples per state, largest first, plus the sample count. */
  synchronized Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    states.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> m.put(e.getKey(), Math.round(1000.0 * e.getValue() / Math.max(1, samples)) / 10.0));
    m.put("(samples)", samples);
    return m;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
