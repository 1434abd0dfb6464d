package io.twinbox;

import java.time.Duration;

/**
 * Receives the inbox's events: the hook for metrics and logs. No-op defaults; implementations must
 * be fast, thread-safe and must not throw.
 */
public interface InboxListener {
  InboxListener NONE = new InboxListener() {};

  /** The handler ran; its effect commits with the inbox record. */
  default void processed(InboxMessage message) {}

  /** Already processed: skipped. */
  default void duplicate(InboxMessage message) {}

  /** Ordering guard: not newer than its aggregate's last applied sequence; skipped. */
  default void stale(InboxMessage message) {}

  /** Ordering guard: held until the missing earlier sequences of its aggregate arrive. */
  default void held(InboxMessage message) {}

  /** Parked for an operator, with the reason. */
  default void parked(InboxMessage message, String reason) {}

  /**
   * A park could not be stored (the database is unreachable or refused even the minimal row). The
   * consumer keeps the message, pauses and retries only the park — its handler does not run again —
   * so its partition or queue waits meanwhile.
   */
  default void parkFailed(InboxMessage message, String reason) {}

  /**
   * An {@link InboxConsumer} committed the transaction that brought {@code message} to its end
   * (processed, duplicate or parked): the latency from the consumer's receipt of it and from the
   * event's {@code time} (end to end, across clocks; {@code null} when the event has none).
   */
  default void committed(InboxMessage message, Duration sinceReceived, Duration sinceEvent) {}

  /** A parked message was forwarded to the consumer's dead-letter destination and acknowledged. */
  default void parkedForwarded(io.twinbox.spi.ParkedLetter letter) {}

  /** Forwarding a parked message failed ({@code reason}); it is forwarded again later. */
  default void parkedForwardFailed(io.twinbox.spi.ParkedLetter letter, String reason) {}
}
