package io.twinbox.spi;

/**
 * How a broker answered one publish. The relay treats the four kinds differently:
 *
 * <ul>
 *   <li>{@link Kind#ACKED}: durably accepted; the row may be completed.
 *   <li>{@link Kind#RETRY}: failed because of this message; counts one attempt, backs off.
 *   <li>{@link Kind#REJECTED}: will never succeed (too large, no such topic, unroutable); the row
 *       goes to FAILED at once with the reason.
 *   <li>{@link Kind#UNAVAILABLE}: the broker could not be reached or the answer was ambiguous
 *       (timeout); costs no attempt, pauses the relay and republishes later.
 * </ul>
 */
public record PublishOutcome(Kind kind, String reason) {
  public enum Kind { ACKED, RETRY, REJECTED, UNAVAILABLE }

  private static final PublishOutcome ACK = new PublishOutcome(Kind.ACKED, null);

  public static PublishOutcome acked() {
    return ACK;
  }

  public static PublishOutcome retry(String reason) {
    return new PublishOutcome(Kind.RETRY, reason);
  }

  public static PublishOutcome rejected(String reason) {
    return new PublishOutcome(Kind.REJECTED, reason);
  }

  public static PublishOutcome unavailable(String reason) {
    return new PublishOutcome(Kind.UNAVAILABLE, reason);
  }
}
