package io.twinbox;

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

  /** Parked for an operator, with the reason. */
  default void parked(InboxMessage message, String reason) {}
}
