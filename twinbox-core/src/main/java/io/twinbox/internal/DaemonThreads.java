package io.twinbox.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/** The one way core starts its background threads: named daemon threads. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A single-thread scheduler whose thread is a daemon named {@code name}. */
  public static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /** A pool of {@code threads} daemon threads named {@code name-1}, {@code name-2}, … */
  public static ExecutorService pool(String name, int threads) {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }
}
