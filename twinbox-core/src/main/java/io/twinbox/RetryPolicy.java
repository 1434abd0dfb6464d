package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how fast the relay retries an event whose publish failed because of the event
 * itself: exponential backoff with jitter, up to {@link #maxAttempts()}, then FAILED.
 *
 * <p>Defaults ({@link #ofDefaults()}): those of {@link #MAX_ATTEMPTS}, {@link #INITIAL_DELAY},
 * {@link #MAX_DELAY}, {@link #MULTIPLIER} and {@link #JITTER} — exponential from the initial
 * delay, capped, full jitter (each delay is drawn uniformly from {@code [0, computed]}). Broker
 * outages never count as attempts. Immutable and thread-safe.
 */
public final class RetryPolicy {
  public static final Setting<Integer> MAX_ATTEMPTS = Setting.integer("maxAttempts").atLeast(1).defaultValue(10)
      .description("Attempts before FAILED (relay) or parked (consumer).");
  public static final Setting<Duration> INITIAL_DELAY = Setting.duration("initialDelay").atLeast(Duration.ZERO)
      .defaultValue(Duration.ofSeconds(1)).description("Delay after the first failure; at most maxDelay.");
  public static final Setting<Duration> MAX_DELAY = Setting.duration("maxDelay").atLeast(Duration.ZERO)
      .defaultValue(Duration.ofMinutes(5)).description("Cap of the delay between two attempts.");
  public static final Setting<Double> MULTIPLIER = Setting.decimal("multiplier").atLeast(1.0).defaultValue(2.0)
      .description("Growth of the delay per attempt.");
  public static final Setting<Double> JITTER = Setting.decimal("jitter").range(0.0, 1.0).defaultValue(1.0)
      .description("Share of each delay that is random: 0 none, 1 full jitter.");

  /** The rule the builder and every surface check: the first delay is not above the cap. */
  private static final Catalogue.Rule BACKOFF_ORDER = (v, name) ->
      v.get(INITIAL_DELAY).compareTo(v.get(MAX_DELAY)) <= 0 ? null
          : name.apply(INITIAL_DELAY.name()) + " (" + INITIAL_DELAY.format(v.get(INITIAL_DELAY)) + ") must not exceed "
              + name.apply(MAX_DELAY.name()) + " (" + MAX_DELAY.format(v.get(MAX_DELAY)) + ")";

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

  /**
   * The retry settings with {@code defaults}' values as their defaults, for a component that
   * declares a retry policy among its settings (the relay: {@link #ofDefaults()}; the inbox
   * consumers: their own). Applied to a {@link Builder} that starts from {@code defaults}.
   */
  public static Catalogue<Builder> settings(RetryPolicy defaults) {
    return Catalogue.<Builder>builder("retry", "RetryPolicy")
        .add(MAX_ATTEMPTS.defaultValue(defaults.maxAttempts), Builder::maxAttempts)
        .add(INITIAL_DELAY.defaultValue(defaults.initialDelay), Builder::initialDelay)
        .add(MAX_DELAY.defaultValue(defaults.maxDelay), Builder::maxDelay)
        .add(MULTIPLIER.defaultValue(defaults.multiplier), Builder::multiplier)
        .add(JITTER.defaultValue(defaults.jitter), Builder::jitter)
        .rule(BACKOFF_ORDER)
        .build();
  }

  /** A builder holding this policy's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxAttempts = maxAttempts;
    b.initialDelay = initialDelay;
    b.maxDelay = maxDelay;
    b.multiplier = multiplier;
    b.jitter = jitter;
    return b;
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
    private int maxAttempts = MAX_ATTEMPTS.defaultValue();
    private Duration initialDelay = INITIAL_DELAY.defaultValue();
    private Duration maxDelay = MAX_DELAY.defaultValue();
    private double multiplier = MULTIPLIER.defaultValue();
    private double jitter = JITTER.defaultValue();

    Builder() {}

    /** Attempts before FAILED; see {@link RetryPolicy#MAX_ATTEMPTS} for the default and limits. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = MAX_ATTEMPTS.check(maxAttempts);
      return this;
    }

    /** First delay and cap, checked at once: {@code 0 <= initialDelay <= maxDelay}. */
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

    /** The first delay; see {@link RetryPolicy#INITIAL_DELAY}. {@link #build()} checks it is not above the cap. */
    public Builder initialDelay(Duration initialDelay) {
      this.initialDelay = INITIAL_DELAY.check(initialDelay);
      return this;
    }

    /** The cap of the delay; see {@link RetryPolicy#MAX_DELAY}. */
    public Builder maxDelay(Duration maxDelay) {
      this.maxDelay = MAX_DELAY.check(maxDelay);
      return this;
    }

    /** Growth factor per attempt; see {@link RetryPolicy#MULTIPLIER}. */
    public Builder multiplier(double multiplier) {
      this.multiplier = MULTIPLIER.check(multiplier);
      return this;
    }

    /** Share of each delay that is randomised, 0 (none) to 1 (full jitter); see {@link RetryPolicy#JITTER}. */
    public Builder jitter(double jitter) {
      this.jitter = JITTER.check(jitter);
      return this;
    }

    /** @throws IllegalArgumentException when the initial delay exceeds the cap */
    public RetryPolicy build() {
      if (initialDelay.compareTo(maxDelay) > 0) { // the catalogue's rule words the error, as on every surface
        settings(ofDefaults()).values(Map.of(INITIAL_DELAY.name(), initialDelay, MAX_DELAY.name(), maxDelay));
      }
      return new RetryPolicy(this);
    }
  }
}
