package io.twinbox.spi;

import java.util.Optional;
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

  /**
   * The publisher of this transport's dead letters, to destinations derived from this transport's
   * own (each transport documents its names), on the same connection; empty when the transport
   * has none. A relay with dead letters enabled uses it unless it is given another one.
   */
  default Optional<DeadLetterTransport> deadLetters() {
    return Optional.empty();
  }

  @Override
  void close();
}
