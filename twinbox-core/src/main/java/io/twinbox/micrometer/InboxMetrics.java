package io.twinbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import java.time.Duration;

/**
 * The inbox's meters, fed as an {@link InboxListener}: messages by outcome (processed, duplicate,
 * parked) per consumer, parks the database refused, and the consumer's commit latency from receipt
 * and from the event's time. A jump in duplicates means redeliveries (a relay or consumer
 * restarted); any park failure means a partition or queue is waiting on the database. Thread-safe.
 */
public final class InboxMetrics implements InboxListener, MeterBinder {
  private final String consumer;
  private volatile Counter processed;
  private volatile Counter duplicate;
  private volatile Counter parked;
  private volatile Counter parkFailures;
  private volatile Counter forwarded;
  private volatile Counter forwardFailed;
  private volatile Timer sinceReceived;
  private volatile Timer sinceEvent;

  public InboxMetrics(String consumer) {
    this.consumer = consumer;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    processed = counter(registry, "processed");
    duplicate = counter(registry, "duplicate");
    parked = counter(registry, "parked");
    forwarded = Counter.builder(TwinboxMetricNames.INBOX_DEAD_LETTERS).tag("consumer", consumer).tag("outcome", "forwarded")
        .description("Parked messages forwarded to the dead-letter destination").register(registry);
    forwardFailed = Counter.builder(TwinboxMetricNames.INBOX_DEAD_LETTERS).tag("consumer", consumer).tag("outcome", "failed")
        .description("Forwards of parked messages refused or unanswered (forwarded again)").register(registry);
    parkFailures = Counter.builder(TwinboxMetricNames.INBOX_PARK_FAILURES).tag("consumer", consumer)
        .description("Parks the database refused; each is retried while the message's partition or queue waits")
        .register(registry);
    sinceReceived = latency(registry, "received", "From the consumer's receipt of a message to its commit");
    sinceEvent = latency(registry, "event", "From the event's time to the consumer's commit (end to end)");
  }

  private Timer latency(MeterRegistry registry, String since, String description) {
    return Timer.builder(TwinboxMetricNames.INBOX_COMMIT_LATENCY).tag("consumer", consumer).tag("since", since)
        .description(description).publishPercentiles(0.5, 0.99).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(5)).register(registry);
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
  public void parkedForwarded(io.twinbox.spi.ParkedLetter letter) {
    if (forwarded != null) {
      forwarded.increment();
    }
  }

  @Override
  public void parkedForwardFailed(io.twinbox.spi.ParkedLetter letter, String reason) {
    if (forwardFailed != null) {
      forwardFailed.increment();
    }
  }

  @Override
  public void parked(InboxMessage message, String reason) {
    if (parked != null) {
      parked.increment();
    }
  }

  @Override
  public void parkFailed(InboxMessage message, String reason) {
    if (parkFailures != null) {
      parkFailures.increment();
    }
  }

  @Override
  public void committed(InboxMessage message, Duration sinceReceived, Duration sinceEvent) {
    Timer received = this.sinceReceived;
    Timer event = this.sinceEvent;
    if (received == null) {
      return;
    }
    received.record(sinceReceived.abs());
    if (sinceEvent != null) {
      event.record(sinceEvent.abs()); // abs: the producer's clock may run ahead of this one
    }
  }
}
