package io.twinbox.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A clock a test moves by hand: the {@link InMemoryStore} judges leases, retries, heartbeats and
 * retention on it, as a database judges them on its own clock. {@link #ticking()} follows the
 * system clock plus the offset {@link #advance} adds; {@link #fixed} stands still until moved.
 * Thread-safe.
 */
public final class TestClock extends Clock {
  private final Clock base;
  private volatile Instant fixedAt;
  private volatile Duration offset = Duration.ZERO;

  private TestClock(Clock base, Instant fixedAt) {
    this.base = base;
    this.fixedAt = fixedAt;
  }

  /** The system clock, moved on by every {@link #advance}. */
  public static TestClock ticking() {
    return new TestClock(Clock.systemUTC(), null);
  }

  /** A clock that shows {@code instant} until it is advanced or set. */
  public static TestClock fixed(Instant instant) {
    return new TestClock(Clock.systemUTC(), Objects.requireNonNull(instant, "instant cannot be null"));
  }

  /** Moves the clock on by {@code amount} (never back: a negative amount is refused). */
  public TestClock advance(Duration amount) {
    if (amount.isNegative()) {
      throw new IllegalArgumentException("amount must not be negative (a store's clock does not go back): " + amount);
    }
    synchronized (this) {
      if (fixedAt != null) {
        fixedAt = fixedAt.plus(amount);
      } else {
        offset = offset.plus(amount);
      }
    }
    return this;
  }

  /** Stops the clock at {@code instant}. */
  public synchronized TestClock set(Instant instant) {
    fixedAt = Objects.requireNonNull(instant, "instant cannot be null");
    return this;
  }

  @Override
  public Instant instant() {
    Instant at = fixedAt;
    return at != null ? at : base.instant().plus(offset);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return Clock.fixed(instant(), zone);
  }

  @Override
  public String toString() {
    return "TestClock[" + instant() + (fixedAt != null ? ", fixed]" : ", ticking]");
  }
}
