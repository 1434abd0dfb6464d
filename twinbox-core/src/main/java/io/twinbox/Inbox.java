package io.twinbox;

import io.twinbox.internal.DefaultInbox;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The idempotent inbox: applies each message at most once per consumer. The record
 * {@code (consumer, message id)} is the first write of the caller's transaction; when it already
 * exists the handler is skipped, so a redelivered or republished message has no second effect.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder(store, "payment-service").build();
 * try (Connection c = ds.getConnection()) {
 *   c.setAutoCommit(false);
 *   inbox.process(c, message, (conn, m) -> debitWallet(conn, m));
 *   c.commit();            // only then acknowledge the broker
 * }
 * }</pre>
 *
 * <p>A message with a known id but a different payload (type, version or data) is a
 * {@link InboxOutcome#CONFLICT}: it is parked, never silently skipped. The guarantee lasts as long
 * as inbox records are kept ({@link Builder#retention}); a duplicate arriving later than that is
 * processed again. Thread-safe.
 */
public interface Inbox {

  /** Processes one message in the caller's transaction. */
  InboxOutcome process(Connection connection, InboxMessage message, InboxHandler handler);

  /**
   * Processes messages in order in the caller's transaction, recording them all in one
   * set-based statement. If a handler throws, an {@link InboxHandlerException} names the message;
   * the caller must roll back the whole transaction.
   */
  List<InboxOutcome> processAll(Connection connection, List<InboxMessage> messages, InboxHandler handler);

  /** The consumer name this inbox records under. */
  String consumer();

  InboxStore store();

  InboxConfig config();

  static Builder builder(InboxStore store, String consumer) {
    return new Builder(store, consumer);
  }

  /** The effective settings of an {@link Inbox}. */
  record InboxConfig(String consumer, Duration retention, Duration redeliveryHorizon) {}

  /** Configures an {@link Inbox}. Not thread-safe. */
  final class Builder {
    private final InboxStore store;
    private final String consumer;
    private Duration retention = Duration.ofDays(90);
    private Duration redeliveryHorizon = Duration.ofDays(8);
    private InboxListener listener = InboxListener.NONE;

    Builder(InboxStore store, String consumer) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
      if (consumer == null || consumer.isBlank() || consumer.length() > 255) {
        throw new IllegalArgumentException("consumer must be 1–255 non-blank characters");
      }
      this.consumer = consumer;
    }

    /**
     * How long inbox records are kept: the window within which duplicates are recognised.
     * Default 90 days. Must not be shorter than {@link #redeliveryHorizon}.
     */
    public Builder retention(Duration retention) {
      this.retention = Objects.requireNonNull(retention, "retention cannot be null");
      return this;
    }

    /**
     * The longest time after which a message can still arrive again: the broker's retention plus
     * the producer's longest retry horizon. Default 8 days (Kafka's 7-day default retention plus a
     * day of outbox retries). Used to refuse a retention that would forget ids too early.
     */
    public Builder redeliveryHorizon(Duration horizon) {
      this.redeliveryHorizon = Objects.requireNonNull(horizon, "redeliveryHorizon cannot be null");
      return this;
    }

    public Builder listener(InboxListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    public Inbox build() {
      if (retention.compareTo(redeliveryHorizon) < 0) {
        throw new IllegalArgumentException("retention (" + retention + ") is shorter than the redelivery horizon ("
            + redeliveryHorizon + "): a message redelivered after its record was purged would be processed"
            + " twice; raise retention or lower redeliveryHorizon to match the broker's retention");
      }
      return new DefaultInbox(store, new InboxConfig(consumer, retention, redeliveryHorizon), listener);
    }
  }
}
