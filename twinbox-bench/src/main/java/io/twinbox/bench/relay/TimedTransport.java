package io.twinbox.bench.relay;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decorates a {@link Transport}: times the synchronous part of {@code send} (routing, CloudEvents
 * encoding, handing the record to the producer), counts sends and flushes (one flush per wave),
 * and optionally records the broker-ack time of every message id (for commit-to-ack latency).
 */
public final class TimedTransport implements Transport {
  private final Transport delegate;
  private final Map<UUID, Long> ackedAt;

  final LongAdder sendNanos = new LongAdder();
  final LongAdder sends = new LongAdder();
  final LongAdder flushes = new LongAdder();
  final LongAdder notAcked = new LongAdder();

  /** @param ackedAt where to put {@code System.nanoTime()} of each ack, or {@code null} */
  public TimedTransport(Transport delegate, Map<UUID, Long> ackedAt) {
    this.delegate = delegate;
    this.ackedAt = ackedAt;
  }

  public long sends() {
    return sends.sum();
  }

  public long flushes() {
    return flushes.sum();
  }

  public long sendNanos() {
    return sendNanos.sum();
  }

  public long notAcked() {
    return notAcked.sum();
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    long t0 = System.nanoTime();
    CompletableFuture<PublishOutcome> f = delegate.send(message);
    sendNanos.add(System.nanoTime() - t0);
    sends.increment();
    UUID id = message.id();
    return f.whenComplete((o, e) -> {
      if (o != null && o.kind() == PublishOutcome.Kind.ACKED) {
        if (ackedAt != null) {
          ackedAt.putIfAbsent(id, System.nanoTime());
        }
      } else {
        notAcked.increment();
      }
    });
  }

  @Override
  public void flush() {
    flushes.increment();
    delegate.flush();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
