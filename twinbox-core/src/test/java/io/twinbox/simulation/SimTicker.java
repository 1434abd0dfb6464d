package io.twinbox.simulation;

import io.twinbox.internal.Ticker;
import java.time.Duration;

/**
 * One simulated host's monotonic clock: the shared time line plus this host's own forward jumps.
 * A wait moves the whole simulation's time on (everyone else is paused meanwhile, as if the
 * machine stalled), and is counted, so that a step that only waits can be cut off.
 */
final class SimTicker implements Ticker {
  private final SimTime time;
  private long jumped;
  private int sleepsThisStep;

  SimTicker(SimTime time) {
    this.time = time;
  }

  @Override
  public long nanoTime() {
    return time.nanos() + jumped;
  }

  @Override
  public void sleep(long millis) {
    sleepsThisStep++;
    time.advance(Duration.ofMillis(Math.max(0, millis)));
  }

  /** This host's clock leaps forward (a monotonic clock never goes back). */
  void jump(Duration d) {
    jumped += d.toNanos();
  }

  void newStep() {
    sleepsThisStep = 0;
  }

  int sleepsThisStep() {
    return sleepsThisStep;
  }
}
