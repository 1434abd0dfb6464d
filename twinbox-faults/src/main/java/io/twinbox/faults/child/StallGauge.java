package io.twinbox.faults.child;

import java.time.LocalTime;
import java.util.concurrent.TimeUnit;

/**
 * How long a child JVM stood still: a ticker due every {@code periodMillis} that ran late ran late
 * because the whole process was not scheduled (CPU starvation on a loaded machine, a GC pause, a
 * SIGSTOP), not because a database or broker was slow — the ticker waits for neither. Prints
 * {@value #STALL} lines for lags above {@code reportMillis} so that a lease loss in a relay's log
 * can be matched with a stall of its process, and keeps the longest.
 */
final class StallGauge {
  static final String STALL = "RELAY-STALL";

  private final long periodNanos;
  private final long reportNanos;
  private long last;
  private volatile long maxNanos;

  StallGauge(long periodMillis, long reportMillis) {
    this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
    this.reportNanos = TimeUnit.MILLISECONDS.toNanos(reportMillis);
  }

  /** Called by the ticker on each run. */
  synchronized void tick() {
    long now = System.nanoTime();
    if (last != 0) {
      long lag = now - last - periodNanos;
      if (lag > maxNanos) {
        maxNanos = lag;
      }
      if (lag > reportNanos) {
        System.out.println(STALL + " " + LocalTime.now() + " the process stood still for ~" + lag / 1_000_000
            + " ms (ticker due every " + periodNanos / 1_000_000 + " ms)");
      }
    }
    last = now;
  }

  long maxMillis() {
    return maxNanos / 1_000_000;
  }
}
