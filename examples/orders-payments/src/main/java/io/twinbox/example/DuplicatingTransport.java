package io.twinbox.example;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chaos: a transport that publishes a share of the messages twice — what a relay does when it
 * crashes between the broker's acknowledgement and marking the row, or when the broker's answer
 * is lost and the send is retried. Both copies carry the same message id; the consumer's inbox
 * must absorb the second.
 *
 * <p>The copy is sent right after the original and the returned future completes only when both
 * have been answered, so the relay's next wave for the aggregate cannot overtake either: first
 * delivery order per aggregate is kept. The original's outcome is returned; a failed copy is just
 * a duplicate that did not happen. Thread-safe.
 */
final class DuplicatingTransport implements Transport {
  private final Transport delegate;
  private final double share;
  private final AtomicLong duplicated;

  /**
   * @param share the fraction of messages sent twice, 0–1
   * @param duplicated counts the copies sent
   */
  DuplicatingTransport(Transport delegate, double share, AtomicLong duplicated) {
    this.delegate = delegate;
    this.share = share;
    this.duplicated = duplicated;
  }

  @Override
  public String name() {
    return delegate.name() + "+duplicates";
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    CompletableFuture<PublishOutcome> original = delegate.send(message);
    if (share <= 0 || ThreadLocalRandom.current().nextDouble() >= share) {
      return original;
    }
    CompletableFuture<PublishOutcome> copy = delegate.send(message);
    duplicated.incrementAndGet();
    return original.thenCombine(copy, (first, second) -> first);
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
