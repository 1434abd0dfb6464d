package io.twinbox.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes dead letters ({@link DeadLetter}) to a dead-letter destination, with the broker's
 * strongest acknowledgement, as CloudEvents that keep the original event's id, attributes and
 * payload and add the extensions of {@link WireAttributes#of(DeadLetter, java.net.URI)}. A
 * transport offers one through {@link Transport#deadLetters()}, with names derived from its own
 * routing; it shares the transport's connection and lives as long as the transport.
 *
 * <p>The same outcome rules as {@link Transport#send}: the future never completes exceptionally.
 * Any outcome but {@code ACKED} leaves the dead letter pending; it is sent again later.
 * Implementations must be thread-safe.
 */
public interface DeadLetterTransport {

  /** A short name for logs, e.g. {@code kafka dead letters}. */
  String name();

  /** Starts publishing one dead letter; never throws. */
  CompletableFuture<PublishOutcome> send(DeadLetter letter);

  /**
   * Starts forwarding a parked inbox message (consumer side), routed as its {@link
   * ParkedLetter#standIn()}, with the attributes of {@link WireAttributes#of(ParkedLetter,
   * java.net.URI)}; never throws. Default: {@code REJECTED}, for transports that do not forward.
   */
  default CompletableFuture<PublishOutcome> forward(ParkedLetter letter) {
    return CompletableFuture.completedFuture(PublishOutcome.rejected(name() + " does not forward parked messages"));
  }
}
