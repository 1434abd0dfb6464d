package io.twinbox.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes outbox messages to a broker with its strongest acknowledgement.
 *
 * <p>The relay calls {@link #send} for every message of a wave without waiting, then waits for all
 * the futures. Messages of one aggregate are never in the same wave, so a transport may pipeline
 * freely. Implementations must be thread-safe: several relay workers share one transport.
 */
public interface Transport extends AutoCloseable {

  /** A short name for logs and metrics, e.g. {@code kafka}. */
  String name();

  /**
   * Starts publishing one message. The future completes with the broker's answer and never
   * completes exceptionally: every failure is classified into a {@link PublishOutcome}.
   */
  CompletableFuture<PublishOutcome> send(OutboxMessage message);

  /** Pushes out anything buffered; called after each wave of sends. */
  default void flush() {}

  @Override
  void close();
}
