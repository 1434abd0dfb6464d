package io.twinbox.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The one way core starts its background schedulers: one named daemon thread each. */
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
}
