package io.twinbox.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One reusable thread per nesting level of interleaved steps: a step run "in between" another
 * runs on the thread of its level while the one below waits for it, so that only one thread ever
 * runs, yet locks see different threads. Starting a thread per interleaved step cost more than
 * the steps themselves.
 */
final class NestedThreads {
  private static final List<ExecutorService> LEVELS = new ArrayList<>();

  private NestedThreads() {}

  static synchronized ExecutorService at(int level) {
    while (LEVELS.size() <= level) {
      String name = "sim-interleaved-" + LEVELS.size();
      LEVELS.add(Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
      }));
    }
    return LEVELS.get(level);
  }
}
