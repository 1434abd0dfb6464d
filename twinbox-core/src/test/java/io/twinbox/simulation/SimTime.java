package io.twinbox.simulation;

import io.twinbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;

/**
 * The simulation's one time line. Every host's monotonic clock ({@link SimTicker}) and the
 * database's clock (a fixed {@link TestClock} the in-memory store judges leases on) move only
 * when the simulation moves them, so a run is a function of its seed.
 */
final class SimTime {
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private long nanos = 1_000_000_000L;
  private final TestClock database = TestClock.fixed(START);

  long nanos() {
    return nanos;
  }

  long millis() {
    return nanos / 1_000_000;
  }

  TestClock database() {
    return database;
  }

  /** Time passes for everyone: hosts and database alike. */
  void advance(Duration d) {
    if (d.isNegative() || d.isZero()) {
      return;
    }
    nanos += d.toNanos();
    database.advance(d);
  }

  /** The database's wall clock jumps forward (an NTP step); the hosts' monotonic clocks do not. */
  void jumpDatabase(Duration d) {
    database.advance(d);
  }
}
