package io.twinbox.bench;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Waits, before each measurement, until the rest of the machine is quiet: the CPU used by other
 * processes (and PostgreSQL, which is idle between this harness's measurements unless someone
 * else uses it) over a 3-second window is below a threshold. The machine is shared with other
 * engineers' builds; this trades wall time for cleaner numbers. Off unless configured.
 */
public final class Quiet {
  private static volatile double maxBusyCores;
  private static volatile long maxWaitSeconds;

  private Quiet() {}

  public static void configure(double maxBusyCores, long maxWaitSeconds) {
    Quiet.maxBusyCores = maxBusyCores;
    Quiet.maxWaitSeconds = maxWaitSeconds;
  }

  /**
   * Returns the busy cores of others seen last (NaN when off), after at most the configured wait.
   *
   * @param brokerPids processes of this harness besides the JVM itself
   */
  public static double await(Set<Long> brokerPids) throws InterruptedException {
    if (maxBusyCores <= 0) {
      return Double.NaN;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxWaitSeconds);
    long started = System.nanoTime();
    double busy;
    while (true) {
      CpuMeter m = CpuMeter.start(brokerPids);
      TimeUnit.SECONDS.sleep(3);
      Map<String, Double> use = m.stop();
      busy = use.getOrDefault("cpu_other", 0.0) + use.getOrDefault("cpu_postgres", 0.0);
      if (busy <= maxBusyCores || System.nanoTime() > deadline) {
        break;
      }
    }
    long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    if (busy > maxBusyCores) {
      System.out.printf("    (machine still busy after %d s: others use %.2f cores; measuring anyway)%n", waited, busy);
    } else if (waited > 3) {
      System.out.printf("    (waited %d s for a quiet machine: others now use %.2f cores)%n", waited, busy);
    }
    return busy;
  }
}
