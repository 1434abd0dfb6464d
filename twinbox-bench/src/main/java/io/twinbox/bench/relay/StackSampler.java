package io.twinbox.bench.relay;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A poor man's sampling profiler for the relay's worker threads ({@code twinbox-relay-*}) and the
 * Kafka producer's I/O thread: every {@code periodMillis} it takes their stacks and files each
 * sample under the innermost frame that says what the thread is doing (claim query, complete
 * query, waiting for acks, encoding, sleeping...). Same information as repeated {@code jcmd
 * Thread.print}, summed.
 */
public final class StackSampler implements AutoCloseable {
  private final long periodMillis;
  private final Map<String, Long> workerStates = new TreeMap<>();
  private final Map<String, Long> producerStates = new TreeMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long samples;

  public StackSampler(long periodMillis) {
    this.periodMillis = periodMillis;
    this.thread = new Thread(this::loop, "bench-stack-sampler");
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
        for (Map.Entry<Thread, StackTraceElement[]> e : all.entrySet()) {
          String name = e.getKey().getName();
          if (name.startsWith("twinbox-relay-")) {
            workerStates.merge(classifyWorker(e.getValue()), 1L, Long::sum);
          } else if (name.startsWith("kafka-producer-network-thread")) {
            producerStates.merge(classifyProducer(e.getKey(), e.getValue()), 1L, Long::sum);
          }
        }
      }
    }
  }

  static String classifyWorker(StackTraceElement[] stack) {
    boolean inClaim = false;
    boolean inComplete = false;
    boolean inPublish = false;
    boolean inSend = false;
    boolean inSleep = false;
    boolean inLease = false;
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      String m = f.getMethodName();
      if (c.endsWith("JdbcStore") && m.equals("claim")) {
        inClaim = true;
      } else if (c.endsWith("JdbcStore") && m.equals("complete")) {
        inComplete = true;
      } else if (c.endsWith("WavePublisher")) {
        inPublish = true;
      } else if (c.startsWith("io.twinbox.kafka")) {
        inSend = true;
      } else if (c.endsWith("RelayEngine") && m.equals("sleepOrWake")) {
        inSleep = true;
      } else if (c.endsWith("ReentrantLock") || c.endsWith("LeaseKeeper")) {
        inLease = true;
      }
    }
    String top = stack.length == 0 ? "?" : stack[0].getClassName() + "." + stack[0].getMethodName();
    String lower = top.toLowerCase(java.util.Locale.ROOT);
    boolean onSocket = lower.contains("socketread") || lower.contains("socketdispatcher") || lower.contains("niosocketimpl")
        || lower.contains("net.poll") || lower.contains("epoll") || lower.contains("read0");
    if (inClaim) {
      return onSocket ? "claim: waiting for PostgreSQL" : "claim: JDBC/CPU";
    }
    if (inComplete) {
      return onSocket ? "complete: waiting for PostgreSQL" : "complete: JDBC/CPU";
    }
    if (inSend) {
      return "publish: encode + producer.send";
    }
    if (inPublish) {
      boolean parked = top.contains("park") || top.contains("Unsafe") || top.contains("LockSupport");
      return parked ? "publish: waiting for broker acks" : "publish: wave bookkeeping/CPU";
    }
    if (inSleep) {
      return "idle: waiting for work (poll/notify)";
    }
    if (inLease) {
      return "waiting for worker lock / lease";
    }
    return "other: " + top;
  }

  static String classifyProducer(Thread t, StackTraceElement[] stack) {
    String top = stack.length == 0 ? "?" : stack[0].getClassName() + "." + stack[0].getMethodName();
    String lower = top.toLowerCase(java.util.Locale.ROOT);
    if (lower.contains("epoll") || lower.contains("poll") || lower.contains("select")) {
      return "producer I/O: waiting (select)";
    }
    return "producer I/O: running";
  }

  /** Shares of samples per state, in percent, for the worker threads and the producer thread. */
  public synchronized Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("samples", samples);
    m.put("period_ms", periodMillis);
    m.put("workers", percent(workerStates));
    m.put("producer", percent(producerStates));
    return m;
  }

  private static Map<String, Double> percent(Map<String, Long> counts) {
    long total = counts.values().stream().mapToLong(Long::longValue).sum();
    Map<String, Double> m = new LinkedHashMap<>();
    counts.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .forEach(e -> m.put(e.getKey(), Math.round(1000.0 * e.getValue() / Math.max(1, total)) / 10.0));
    return m;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
