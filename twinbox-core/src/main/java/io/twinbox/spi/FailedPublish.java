package io.twinbox.spi;

import java.time.Duration;

/**
 * What to record about a message whose publish failed because of the message itself.
 *
 * @param position the row
 * @param dead {@code true} to move it to FAILED (attempts exhausted or a permanent rejection)
 * @param retryAfter delay before the next attempt, measured on the database clock
 * @param error a short reason, without payload or secrets
 */
public record FailedPublish(long position, boolean dead, Duration retryAfter, String error) {}
