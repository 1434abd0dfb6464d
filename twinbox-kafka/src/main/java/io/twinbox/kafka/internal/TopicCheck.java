package io.twinbox.kafka.internal;

/**
 * Asks the cluster whether a topic exists, without creating it. Implementations must be
 * thread-safe and bound the time they take.
 */
@FunctionalInterface
public interface TopicCheck {

  /** The cluster's answer about {@code topic}. Never throws. */
  Answer check(String topic);

  /** What the cluster said. */
  enum Kind {
    /** The topic exists. */
    EXISTS,
    /** The cluster answered {@code UNKNOWN_TOPIC_OR_PARTITION}. */
    MISSING,
    /** No answer (unreachable, timed out, not authorised to describe): decides nothing. */
    UNKNOWN
  }

  /**
   * @param kind the answer
   * @param detail why the answer is {@code UNKNOWN}, else {@code null}
   */
  record Answer(Kind kind, String detail) {
    public static final Answer EXISTS = new Answer(Kind.EXISTS, null);
    public static final Answer MISSING = new Answer(Kind.MISSING, null);

    public static Answer unknown(String detail) {
      return new Answer(Kind.UNKNOWN, detail);
    }
  }
}
