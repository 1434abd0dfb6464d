package io.twinbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link Retention}'s meters, fed as a {@link RetentionListener}: rows deleted by kind, rounds by
 * outcome (a {@code skipped} round found another runner holding the lock) and the last completed
 * round's duration. Rows deleted rising while the relay's drain holds is retention keeping up;
 * only {@code skipped} rounds on an instance is normal (another one runs them). Thread-safe.
 */
public final class RetentionMetrics implements RetentionListener, MeterBinder {
  private final Map<Kind, Counter> deleted = new EnumMap<>(Kind.class);
  private final AtomicLong lastRoundNanos = new AtomicLong();
  private volatile Counter completed;
  private volatile Counter skipped;
  private volatile Counter failed;

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Kind k : Kind.values()) {
      deleted.put(k, Counter.builder(TwinboxMetricNames.RETENTION_DELETED).tag("kind", kind(k))
          .description("Rows deleted by retention, by kind").register(registry));
    }
    completed = rounds(registry, "completed");
    skipped = rounds(registry, "skipped");
    failed = rounds(registry, "failed");
    TimeGauge.builder(TwinboxMetricNames.RETENTION_LAST_ROUND_DURATION, lastRoundNanos, TimeUnit.NANOSECONDS,
        AtomicLong::doubleValue).description("Duration of the last completed retention round").register(registry);
  }

  /** {@code PUBLISHED_EVENTS} → {@code published.events}: the tag value. */
  static String kind(Kind k) {
    return k.name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  private static Counter rounds(MeterRegistry registry, String outcome) {
    return Counter.builder(TwinboxMetricNames.RETENTION_ROUNDS).tag("outcome", outcome)
        .description("Retention rounds, by outcome (skipped: another runner held the lock)").register(registry);
  }

  @Override
  public void deleted(Kind kind, int rows) {
    Counter c = deleted.get(kind);
    if (c != null) {
      c.increment(rows);
    }
  }

  @Override
  public void roundCompleted(Retention.Result result, Duration took) {
    lastRoundNanos.set(took.toNanos());
    if (completed != null) {
      completed.increment();
    }
  }

  @Override
  public void roundSkipped() {
    if (skipped != null) {
      skipped.increment();
    }
  }

  @Override
  public void roundFailed(RuntimeException error) {
    if (failed != null) {
      failed.increment();
    }
  }
}
