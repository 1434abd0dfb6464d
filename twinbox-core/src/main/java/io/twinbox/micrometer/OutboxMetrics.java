package io.twinbox.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.OutboxStatus;
import io.twinbox.internal.Reasons;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges over the outbox table — pending, retrying, failed, held aggregates, oldest pending age,
 * unowned partitions — read from the store at most once per {@code refresh} however often the
 * registry is scraped. When the database cannot be read, the gauges report NaN (not a stale
 * "all is well"). Thread-safe.
 */
public final class OutboxMetrics implements MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(OutboxMetrics.class);

  private final OutboxAdminStore store;
  private final long refreshNanos;
  private OutboxStatus last;
  private long readAt;
  private boolean failed;

  /**
   * @param refresh how long one read of the table is reused; default 5 s in {@link #of}
   */
  public OutboxMetrics(OutboxAdminStore store, Duration refresh) {
    this.store = store;
    this.refreshNanos = refresh.toNanos();
  }

  public static OutboxMetrics of(OutboxAdminStore store) {
    return new OutboxMetrics(store, Duration.ofSeconds(5));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, TwinboxMetricNames.OUTBOX_PENDING, "Outbox rows waiting to be published", OutboxStatus::pending);
    gauge(registry, TwinboxMetricNames.OUTBOX_RETRYING, "Pending rows waiting for a retry", OutboxStatus::retrying);
    gauge(registry, TwinboxMetricNames.OUTBOX_FAILED, "Rows in FAILED (dead letters)", OutboxStatus::failed);
    gauge(registry, TwinboxMetricNames.OUTBOX_HELD_AGGREGATES, "Aggregates held back by a failing event",
        OutboxStatus::heldAggregates);
    gauge(registry, TwinboxMetricNames.RELAY_UNOWNED_PARTITIONS, "Partitions no live relay holds",
        OutboxStatus::unownedPartitions);
    TimeGauge.builder(TwinboxMetricNames.OUTBOX_OLDEST_AGE, this,
            TimeUnit.MILLISECONDS, m -> m.read(s -> s.oldestPendingAge().toMillis()))
        .description("Age of the oldest pending outbox row").strongReference(true).register(registry);
  }

  private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<OutboxStatus> f) {
    // Strong reference: Micrometer holds gauge state weakly, and nothing else may hold this binder.
    Gauge.builder(name, this, m -> m.read(f)).description(description).strongReference(true).register(registry);
  }

  /** The current snapshot, read again when older than the refresh period; null if unreadable. */
  public synchronized OutboxStatus snapshot() {
    long now = System.nanoTime();
    if (last == null && !failed || now - readAt >= refreshNanos) {
      try {
        last = store.status();
        failed = false;
      } catch (RuntimeException e) {
        if (!failed) {
          log.warn("cannot read the outbox status for metrics: {}", Reasons.of(e));
        }
        failed = true;
        last = null;
      }
      readAt = now;
    }
    return last;
  }

  private double read(ToDoubleFunction<OutboxStatus> f) {
    OutboxStatus s = snapshot();
    return s == null ? Double.NaN : f.applyAsDouble(s);
  }

  /** For the health check: lease owners of the last snapshot. */
  public Map<String, Integer> leaseOwners() {
    OutboxStatus s = snapshot();
    return s == null ? Map.of() : s.leaseOwners();
  }
}
