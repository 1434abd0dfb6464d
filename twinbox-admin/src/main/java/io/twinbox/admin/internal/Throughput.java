package io.twinbox.admin.internal;

import io.twinbox.RelayStats;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;

/**
 * Published events per second of the local relay over the last minute, from samples of its
 * {@code published} counter taken when the status is read (at most one a second). Thread-safe.
 */
public final class Throughput {
  private static final long SAMPLE_EVERY_NANOS = 1_000_000_000L;
  private static final long WINDOW_NANOS = 60_000_000_000L;

  private record Sample(long nanos, long published) {}

  private final Supplier<RelayStats> stats;
  private final Deque<Sample> samples = new ArrayDeque<>();

  public Throughput(Supplier<RelayStats> stats) {
    this.stats = stats;
  }

  /** The current counters and the rate, or {@code null} rate while there is under a second of data. */
  public synchronized Reading read() {
    RelayStats now = stats.get();
    long t = System.nanoTime();
    Sample last = samples.peekLast();
    if (last != null && now.published() < last.published()) {
      samples.clear(); // a new relay: its counter started again
      last = null;
    }
    if (last == null || t - last.nanos() >= SAMPLE_EVERY_NANOS) {
      samples.addLast(new Sample(t, now.published()));
    }
    while (samples.size() > 2 && t - samples.peekFirst().nanos() > WINDOW_NANOS) {
      samples.removeFirst();
    }
    Sample first = samples.peekFirst();
    double seconds = (t - first.nanos()) / 1e9;
    Double rate = seconds < 1 ? null : (now.published() - first.published()) / seconds;
    return new Reading(now, rate, seconds);
  }

  /** One reading: the relay's counters and its published rate over {@code windowSeconds}. */
  public record Reading(RelayStats stats, Double publishedPerSecond, double windowSeconds) {}
}
