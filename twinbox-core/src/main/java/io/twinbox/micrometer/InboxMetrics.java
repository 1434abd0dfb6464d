package io.twinbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;

/**
 * The inbox's meters, fed as an {@link InboxListener}: messages by outcome (processed, duplicate,
 * parked) per consumer. A jump in duplicates means redeliveries (a relay or consumer restarted).
 * Thread-safe.
 */
public final class InboxMetrics implements InboxListener, MeterBinder {
  private final String consumer;
  private volatile Counter processed;
  private volatile Counter duplicate;
  private volatile Counter parked;

  public InboxMetrics(String consumer) {
    this.consumer = consumer;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    processed = counter(registry, "processed");
    duplicate = counter(registry, "duplicate");
    parked = counter(registry, "parked");
  }

  private Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder(TwinboxMetricNames.INBOX_MESSAGES).tag("consumer", consumer).tag("outcome", outcome)
        .description("Messages seen by the inbox, by outcome").register(registry);
  }

  @Override
  public void processed(InboxMessage message) {
    if (processed != null) {
      processed.increment();
    }
  }

  @Override
  public void duplicate(InboxMessage message) {
    if (duplicate != null) {
      duplicate.increment();
    }
  }

  @Override
  public void parked(InboxMessage message, String reason) {
    if (parked != null) {
      parked.increment();
    }
  }
}
