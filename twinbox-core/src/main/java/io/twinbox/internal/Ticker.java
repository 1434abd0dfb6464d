package io.twinbox.internal;

import java.util.concurrent.TimeUnit;

/**
 * The engine's time: a monotonic clock and a way to wait on it. {@link #SYSTEM} is
 * {@link System#nanoTime()} and {@link Thread#sleep}; core's deterministic simulation passes a
 * virtual one, so that a seeded scheduler decides what happens when, and a failing seed replays
 * exactly. Only the lease keeper, the wave publisher and the inbox runner read it: the places whose
 * timing decides correctness (fail-closed lease deadlines, retry and back-off waits).
 */
public interface Ticker {
  /** Nanoseconds on a monotonic clock with an arbitrary origin, as {@link System#nanoTime()}. */
  long nanoTime();

  /** Waits {@code millis} on this clock. */
  void sleep(long millis) throws InterruptedException;

  /** The JVM's monotonic clock and {@link Thread#sleep}. */
  Ticker SYSTEM = new Ticker() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(long millis) throws InterruptedException {
      TimeUnit.MILLISECONDS.sleep(millis);
    }

    @Override
    public String toString() {
      return "Ticker.SYSTEM";
    }
  };
}
