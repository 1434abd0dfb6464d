package io.twinbox.spi;

import java.time.Duration;

/**
 * What to record about a message whose publish failed because of the message itself, or about
 * an {@link UndecodableRow} (always {@code dead}: it can never be published as it is).
 *
 * @param position the row (a position is always readable, so it also names rows whose id is not a
 *     UUID)
 * @param dead {@code true} to move it to FAILED (attempts exhausted or a permanent rejection)
 * @param retryAfter delay before the next attempt, measured on the database clock
 * @param error a short reason, without payload or secrets
 * @param deadLetter {@code true} when the relay publishes dead letters: the store records the failure's
 *     time (first and last), and a {@code dead} row's dead letter is marked pending in the same
 *     update that makes it FAILED
 */
public record FailedPublish(long position, boolean dead, Duration retryAfter, String error, boolean deadLetter) {

  /** A failure without a dead letter. */
  public FailedPublish(long position, boolean dead, Duration retryAfter, String error) {
    this(position, dead, retryAfter, error, false);
  }
}
