package io.twinbox.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * A FAILED outbox event on its way to a dead-letter destination: the event as it was claimed, and
 * why and when it failed. {@link WireAttributes#of(DeadLetter, java.net.URI)} turns it into the
 * original event's CloudEvents attributes plus the dead-letter extensions.
 *
 * @param message the event, with its original id, attributes and payload
 * @param reason the stored {@code last_error}, without payload or secrets
 * @param attempts failed publish attempts (at least 1)
 * @param firstFailedAt when the first attempt failed (database clock)
 * @param lastFailedAt when the last attempt failed (database clock)
 */
public record DeadLetter(OutboxMessage message, String reason, int attempts, Instant firstFailedAt,
    Instant lastFailedAt) {

  public DeadLetter {
    Objects.requireNonNull(message, "message cannot be null");
  }

  /** The row's position: how the store marks the dead letter sent. */
  public long position() {
    return message.position();
  }
}
