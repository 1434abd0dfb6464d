package io.twinbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how fast the relay retries an event whose publish failed because of the event
 * itself: exponential backoff with jitter, up to {@link #maxAttempts()}, then FAILED.
 *
 * <p>Defaults ({@link #ofDefaults()}): 10 attempts, first delay 1 s, doubling, capped at 5 min,
 * full jitter (each delay is drawn uniformly from {@code [0, computed]}). Broker outages never
 * count as attempts. Immutable and thread-safe.
 */
public final class RetryPolicy {
  private final int maxAttempts;
  private final Duration initialDelay;
  private final Duration maxDelay;
  private final double multiplier;
  private final double jitter;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.initialDelay = b.initialDelay;
    this.maxDelay = b.maxDelay;
    this.multiplier = b.multiplier;
    this.jitter = b.jitter;
  }

  public static RetryPolicy ofDefaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public Duration initialDelay() {
    return initialDelay;
  }

  public Duration maxDelay() {
    return maxDelay;
  }

  public double multiplier() {
    return multiplier;
  }

  public double jitter() {
    return jitter;
  }

  /** True when an event that has now failed {@code attempts} times must go to FAILED. */
  public boolean exhausted(int attempts) {
    return attempts >= maxAttempts;
  }

  /** The delay before the next attempt after {@code attempts} failures ({@code >= 1}). */
  public Duration delayAfter(int attempts) {
    double base = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, attempts - 1));
    double capped = Math.min(base, maxDelay.toMillis());
    double factor = 1.0 - jitter * ThreadLocalRandom.current().nextDouble();
    return Duration.ofMillis(Math.max(0L, Math.round(capped * factor)));
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts=" + maxAttempts + ", initialDelay=" + initialDelay + ", maxDelay="
        + maxDelay + ", multiplier=" + multiplier + ", jitter=" + jitter + "]";
  }

  /** Builds a {@link RetryPolicy}. Not thread-safe. */
  public static final class Builder {
    private int maxAttempts = 10;
    private Duration initialDelay = Duration.ofSeconds(1);
    private Duration maxDelay = Duration.ofMinutes(5);
    private double multiplier = 2.0;
    private double jitter = 1.0;

    Builder() {}

    /** Attempts before FAILED, {@code >= 1}. Default 10. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** First delay and cap. Defaults 1 s and 5 min. */
    public Builder backoff(Duration initialDelay, Duration maxDelay) {
      Objects.requireNonNull(initialDelay, "initialDelay cannot be null");
      Objects.requireNonNull(maxDelay, "maxDelay cannot be null");
      if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) {
        throw new IllegalArgumentException("backoff needs 0 <= initialDelay <= maxDelay, was "
            + initialDelay + " and " + maxDelay);
      }
      this.initialDelay = initialDelay;
      this.maxDelay = maxDelay;
      return this;
    }

    /** Growth factor per attempt, {@code >= 1}. Default 2. */
    public Builder multiplier(double multiplier) {
      if (!(multiplier >= 1.0)) {
        throw new IllegalArgumentException("multiplier must be >= 1, was " + multiplier);
      }
      this.multiplier = multiplier;
      return this;
    }

    /** Share of each delay that is randomised, 0 (none) to 1 (full jitter). Default 1. */
    public Builder jitter(double jitter) {
      if (!(jitter >= 0.0 && jitter <= 1.0)) {
        throw new IllegalArgumentException("jitter must be within [0, 1], was " + jitter);
      }
      this.jitter = jitter;
      return this;
    }

    public RetryPolicy build() {
      return new RetryPolicy(this);
    }
  }
}
