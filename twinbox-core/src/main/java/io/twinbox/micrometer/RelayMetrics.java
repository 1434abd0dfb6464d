package io.twinbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.RelayListener;
import io.twinbox.spi.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The relay's meters, fed as a {@link RelayListener}: publish outcomes, commit-to-ack latency
 * (with percentiles), outages, held partitions. Register it with {@code
 * Relay.Builder.listener(metrics)} and bind it to a registry. Thread-safe.
 */
public final class RelayMetrics implements RelayListener, MeterBinder {
  private final String relay;
  private final AtomicInteger partitions = new AtomicInteger();
  private volatile Counter published;
  private volatile Counter retry;
  private volatile Counter dead;
  private volatile Counter fenced;
  private volatile Counter outages;
  private volatile Timer latency;

  /** @param relay a tag value naming this relay (e.g. the service name) */
  public RelayMetrics(String relay) {
    this.relay = relay;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    published = outcome(registry, "published");
    retry = outcome(registry, "retry");
    dead = outcome(registry, "dead");
    fenced = outcome(registry, "fenced");
    outages = Counter.builder(TwinboxMetricNames.RELAY_OUTAGES).tag("relay", relay)
        .description("Waves that met an unavailable broker; no attempt was used").register(registry);
    latency = Timer.builder(TwinboxMetricNames.RELAY_PUBLISH_LATENCY).tag("relay", relay)
        .description("From the event's commit to the broker's acknowledgement")
        .publishPercentiles(0.5, 0.99).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(5))
        .register(registry);
    Gauge.builder(TwinboxMetricNames.RELAY_PARTITIONS, partitions, AtomicInteger::get).tag("relay", relay)
        .description("Outbox partitions this relay holds").strongReference(true).register(registry);
  }

  private Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder(TwinboxMetricNames.RELAY_PUBLISH).tag("relay", relay).tag("outcome", outcome)
        .description("Publish outcomes of outbox events").register(registry);
  }

  @Override
  public void published(List<OutboxMessage> messages) {
    Counter c = published;
    Timer t = latency;
    if (c == null) {
      return;
    }
    c.increment(messages.size());
    Instant now = Instant.now();
    for (OutboxMessage m : messages) {
      if (m.createdAt() != null) {
        t.record(Duration.between(m.createdAt(), now).abs());
      }
    }
  }

  @Override
  public void publishFailed(OutboxMessage message, String reason, boolean isDead) {
    Counter c = isDead ? dead : retry;
    if (c != null) {
      c.increment();
    }
  }

  @Override
  public void transportUnavailable(String reason) {
    if (outages != null) {
      outages.increment();
    }
  }

  @Override
  public void fenced(int rows) {
    if (fenced != null) {
      fenced.increment(rows);
    }
  }

  @Override
  public void leasesChanged(Set<Integer> held) {
    partitions.set(held.size());
  }
}
