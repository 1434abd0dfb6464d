package io.twinbox.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.ParkedSummary;
import io.twinbox.TwinboxAdmin;
import io.twinbox.internal.Reasons;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges over the parked inbox messages, per consumer: how many wait for an operator or a replay
 * ({@code PARKED} and {@code REPLAYING}) and the age of the oldest of them, on the database clock.
 * Read from the store at most once per {@code refresh} however often the registry is scraped; NaN
 * while the database cannot be read. A consumer without parked messages reports 0. Thread-safe.
 *
 * <pre>{@code
 * ParkedMetrics.of(TwinboxAdmin.of(store), "payment-service", "shipping").bindTo(registry);
 * }</pre>
 */
public final class ParkedMetrics implements MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(ParkedMetrics.class);

  private final TwinboxAdmin admin;
  private final List<String> consumers;
  private final long refreshNanos;
  private List<ParkedSummary> last;
  private long readAt;
  private boolean failed;

  /**
   * @param consumers the consumer names to report (one gauge pair each)
   * @param refresh how long one read is reused
   */
  public ParkedMetrics(TwinboxAdmin admin, List<String> consumers, Duration refresh) {
    this.admin = Objects.requireNonNull(admin, "admin cannot be null");
    this.consumers = List.copyOf(consumers);
    this.refreshNanos = refresh.toNanos();
    if (!admin.hasParkedMessages()) {
      throw new IllegalArgumentException("admin has no inbox store: use TwinboxAdmin.of(store, inboxStore)");
    }
  }

  /** Gauges for {@code consumers}, refreshed at most every 5 s. */
  public static ParkedMetrics of(TwinboxAdmin admin, String... consumers) {
    return new ParkedMetrics(admin, List.of(consumers), Duration.ofSeconds(5));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (String consumer : consumers) {
      Gauge.builder(TwinboxMetricNames.INBOX_PARKED, this, m -> m.read(consumer, s -> s.parked() + s.replaying()))
          .tag("consumer", consumer).description("Parked inbox messages waiting for an operator or a replay")
          .strongReference(true).register(registry);
      TimeGauge.builder(TwinboxMetricNames.INBOX_PARKED_OLDEST_AGE, this, TimeUnit.MILLISECONDS,
              m -> m.read(consumer, s -> s.oldestParkedAge().toMillis()))
          .tag("consumer", consumer).description("Age of the oldest parked inbox message waiting")
          .strongReference(true).register(registry);
    }
  }

  /** The current per-consumer summary, read again when older than the refresh period; null if unreadable. */
  public synchronized List<ParkedSummary> snapshot() {
    long now = System.nanoTime();
    if (last == null && !failed || now - readAt >= refreshNanos) {
      try {
        last = admin.parkedSummary();
        failed = false;
      } catch (RuntimeException e) {
        if (!failed) {
          log.warn("cannot read the parked messages for metrics: {}", Reasons.of(e));
        }
        failed = true;
        last = null;
      }
      readAt = now;
    }
    return last;
  }

  private double read(String consumer, ToDoubleFunction<ParkedSummary> f) {
    List<ParkedSummary> s = snapshot();
    if (s == null) {
      return Double.NaN;
    }
    return s.stream().filter(x -> x.consumer().equals(consumer)).findFirst()
        .map(f::applyAsDouble).orElse(0.0);
  }
}
