package io.twinbox.example;

import java.time.Duration;

/**
 * One phase of a demo run, as measured: the burst (orders placed as fast as possible, for
 * throughput) or the paced phase after it (orders placed at a modest fixed rate, for latency).
 *
 * @param name how the report calls it ("burst", "steady")
 * @param ratePerSecond the rate the orders were paced to, 0 for as fast as possible
 * @param placed orders committed in this phase
 * @param placing from the first order to the last one committed
 * @param settledAfter from the phase's start to the moment every order placed so far was settled
 *     ({@code null} if that never happened within the drain timeout)
 * @param latency order placed → PAID/REJECTED for this phase's orders, from the database's timestamps
 */
public record Phase(String name, int ratePerSecond, long placed, Duration placing, Duration settledAfter,
    Latency.Figures latency) {

  /** Orders settled per second: placed / settledAfter (0 if the phase never settled). */
  public double settledPerSecond() {
    return settledAfter == null ? 0 : placed / Math.max(settledAfter.toNanos() / 1e9, 0.001);
  }

  /** Orders placed per second: placed / placing. */
  public double placedPerSecond() {
    return placed / Math.max(placing.toNanos() / 1e9, 0.001);
  }
}
