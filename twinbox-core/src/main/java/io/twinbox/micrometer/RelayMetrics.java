package io.twinbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.TimeGauge;
import io.twinbox.ChangeFeedException;
import io.twinbox.ChangeFeedStatus;
import io.twinbox.RelayListener;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The relay's meters, fed as a {@link RelayListener}: publish outcomes, commit-to-ack latency
 * (with percentiles), undecodable rows, outages, held partitions, and for the WAL relay the replication slot's lag,
 * confirmed position and time since the last confirmation (NaN until the first report, and for a
 * polling relay). Register it with {@code
 * Relay.Builder.listener(metrics)} and bind it to a registry. Thread-safe.
 */
public final class RelayMetrics implements RelayListener, MeterBinder {
  private final String relay;
  private final AtomicInteger partitions = new AtomicInteger();
  private volatile Counter published;
  private volatile Counter retry;
  private volatile Counter dead;
  private volatile Counter fenced;
  private volatile Counter undecodable;
  private volatile Counter outages;
  private volatile Counter deadLettered;
  private volatile Counter deadLetterFailed;
  private volatile Timer latency;
  private volatile ChangeFeedStatus slot;
  private volatile boolean slotLost;

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
    undecodable = Counter.builder(TwinboxMetricNames.RELAY_UNDECODABLE).tag("relay", relay)
        .description("Claimed rows that could not be decoded and went to FAILED (also outcome=dead)")
        .register(registry);
    deadLettered = Counter.builder(TwinboxMetricNames.RELAY_DEAD_LETTERS).tag("relay", relay).tag("outcome", "published")
        .description("Dead letters acknowledged by the dead-letter destination").register(registry);
    deadLetterFailed = Counter.builder(TwinboxMetricNames.RELAY_DEAD_LETTERS).tag("relay", relay).tag("outcome", "failed")
        .description("Dead-letter publishes refused or unanswered (kept pending, sent again)").register(registry);
    outages = Counter.builder(TwinboxMetricNames.RELAY_OUTAGES).tag("relay", relay)
        .description("Waves that met an unavailable broker; no attempt was used").register(registry);
    latency = Timer.builder(TwinboxMetricNames.RELAY_PUBLISH_LATENCY).tag("relay", relay)
        .description("From the event's commit to the broker's acknowledgement")
        .publishPercentiles(0.5, 0.99).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(5))
        .register(registry);
    Gauge.builder(TwinboxMetricNames.RELAY_PARTITIONS, partitions, AtomicInteger::get).tag("relay", relay)
        .description("Outbox partitions this relay holds").strongReference(true).register(registry);
    Gauge.builder(TwinboxMetricNames.RELAY_SLOT_LAG_BYTES, this, m -> m.slotValue(s -> s.lagBytes() < 0 ? Double.NaN : s.lagBytes()))
        .tag("relay", relay).baseUnit("bytes").description("WAL the server keeps beyond the slot's confirmed position")
        .strongReference(true).register(registry);
    Gauge.builder(TwinboxMetricNames.RELAY_SLOT_CONFIRMED_LSN, this, m -> m.slotValue(s -> s.confirmedLsn() < 0 ? Double.NaN : s.confirmedLsn()))
        .tag("relay", relay).description("The replication slot's confirmed position (64-bit LSN)")
        .strongReference(true).register(registry);
    TimeGauge.builder(TwinboxMetricNames.RELAY_SLOT_LAG, this, TimeUnit.MILLISECONDS, m -> m.slotValue(s -> s.lag().toMillis()))
        .tag("relay", relay).description("Age of the oldest received transaction not yet confirmed")
        .strongReference(true).register(registry);
    TimeGauge.builder(TwinboxMetricNames.RELAY_SLOT_SINCE_CONFIRM, this, TimeUnit.MILLISECONDS,
            m -> m.slotValue(s -> s.sinceConfirm().toMillis()))
        .tag("relay", relay).description("Time since the slot's confirmed position last moved forward")
        .strongReference(true).register(registry);
    Gauge.builder(TwinboxMetricNames.RELAY_SLOT_LOST, this, m -> m.slotLost ? 1 : m.slotValue(s -> 0))
        .tag("relay", relay).description("1 once the replication slot was lost and the relay stopped streaming")
        .strongReference(true).register(registry);
  }

  private double slotValue(java.util.function.ToDoubleFunction<ChangeFeedStatus> f) {
    ChangeFeedStatus s = slot;
    return s == null ? Double.NaN : f.applyAsDouble(s);
  }

  @Override
  public void changeFeed(ChangeFeedStatus status) {
    slot = status;
  }

  @Override
  public void changeFeedLost(ChangeFeedException reason) {
    slotLost = true;
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
  public void undecodable(UndecodableRow row) {
    Counter d = dead;
    Counter u = undecodable;
    if (d != null) {
      d.increment();
      u.increment();
    }
  }

  @Override
  public void deadLettered(io.twinbox.spi.DeadLetter letter) {
    if (deadLettered != null) {
      deadLettered.increment();
    }
  }

  @Override
  public void deadLetterFailed(io.twinbox.spi.DeadLetter letter, String reason) {
    if (deadLetterFailed != null) {
      deadLetterFailed.increment();
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
