package io.twinbox.nats;

import io.twinbox.nats.internal.Subjects;
import io.twinbox.spi.OutboxMessage;

/**
 * Chooses the NATS subject of each outbox message. A stream captures subjects, so the subject also
 * decides the stream (no stream for a subject: the publish is {@code REJECTED} "no stream").
 *
 * <p>The default, {@link #byAggregateType()}, is {@code twinbox.<aggregate type>.<type>}: a stream
 * per aggregate type captures {@code twinbox.order.>}, and consumers filter by type. A router that
 * throws, or returns an invalid subject (blank, spaces, wildcards {@code *} {@code >}, empty tokens),
 * makes that message fail at once as {@code REJECTED}. Implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface SubjectRouter {

  /** The subject for {@code message}; never {@code null}. */
  String subjectFor(OutboxMessage message);

  /**
   * {@code twinbox.<aggregate type>.<type>}: the aggregate type lowercased with every character
   * outside {@code [a-z0-9_-]} (dots included) replaced by {@code '-'}, so it stays one token; the
   * type with spaces and wildcards replaced by {@code '-'} (its dots remain token separators).
   * {@code ("Order", "OrderPlaced")} → {@code twinbox.order.OrderPlaced}.
   */
  static SubjectRouter byAggregateType() {
    return Subjects.byAggregateType(NatsPublisherSettings.SUBJECT_PREFIX.defaultValue());
  }

  /** Like {@link #byAggregateType()} under another prefix: {@code <prefix>.<aggregate type>.<type>}. */
  static SubjectRouter byAggregateType(String prefix) {
    return Subjects.byAggregateType(prefix);
  }

  /**
   * The default dead-letter router of a publisher routing with {@code main}: {@code prefix} (default
   * {@code dlq}) in front of the event's subject ({@code twinbox.order.OrderPlaced} → {@code
   * dlq.twinbox.order.OrderPlaced}): a prefix, not a suffix, so the event's own stream (which
   * captures {@code twinbox.order.>}) does not capture its dead letters. Create a stream for {@code
   * dlq.>}.
   */
  static SubjectRouter deadLetters(SubjectRouter main, String prefix) {
    java.util.Objects.requireNonNull(main, "main cannot be null");
    String p = Subjects.validate(prefix);
    return new SubjectRouter() {
      @Override
      public String subjectFor(OutboxMessage message) {
        String subject = main.subjectFor(message);
        return subject == null ? null : p + "." + subject;
      }

      @Override
      public String toString() {
        return "SubjectRouter.deadLetters(" + main + ", " + p + ")";
      }
    };
  }
}
