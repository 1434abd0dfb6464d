package io.twinbox.it;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A real transport with faults that can be switched on and off while a relay runs: a broker
 * outage ({@code UNAVAILABLE} for everything) and a poison predicate answering {@code RETRY}.
 * Records every send. A fake in front of a real broker, not a mock of one. Thread-safe.
 */
final class SwitchableTransport implements Transport {
  private final Transport delegate;
  private final List<OutboxMessage> sends = new CopyOnWriteArrayList<>();
  private final AtomicLong count = new AtomicLong();
  private volatile boolean down;
  private volatile Predicate<OutboxMessage> poison = m -> false;
  private volatile Predicate<OutboxMessage> reject = m -> false;
  private volatile boolean record = true;

  SwitchableTransport(Transport delegate) {
    this.delegate = delegate;
  }

  SwitchableTransport down(boolean isDown) {
    this.down = isDown;
    return this;
  }

  SwitchableTransport poison(Predicate<OutboxMessage> when) {
    this.poison = when;
    return this;
  }

  /** Answers {@code REJECTED} (a permanent refusal) for every message that matches. */
  SwitchableTransport reject(Predicate<OutboxMessage> when) {
    this.reject = when;
    return this;
  }

  /** Stops keeping every message (large runs): only the count goes on. */
  SwitchableTransport countOnly() {
    this.record = false;
    return this;
  }

  List<OutboxMessage> sends() {
    return List.copyOf(sends);
  }

  long sendCount() {
    return count.get();
  }

  @Override
  public String name() {
    return "switchable:" + delegate.name();
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    count.incrementAndGet();
    if (record) {
      sends.add(message);
    }
    if (down) {
      return CompletableFuture.completedFuture(PublishOutcome.unavailable("injected outage"));
    }
    if (reject.test(message)) {
      return CompletableFuture.completedFuture(PublishOutcome.rejected("injected: no such topic"));
    }
    if (poison.test(message)) {
      return CompletableFuture.completedFuture(PublishOutcome.retry("injected: the consumer's schema refuses it"));
    }
    return delegate.send(message);
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
