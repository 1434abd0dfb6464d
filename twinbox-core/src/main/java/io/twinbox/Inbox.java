package io.twinbox;

import io.twinbox.internal.DefaultInbox;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
  record InboxConfig(String consumer, Duration retention, Duration redeliveryHorizon, InboxOrdering ordering,
      Duration gapTimeout) {
    /** Without the ordering guard. */
    public InboxConfig(String consumer, Duration retention, Duration redeliveryHorizon) {
      this(consumer, retention, redeliveryHorizon, InboxOrdering.NONE, InboxSettings.GAP_TIMEOUT.defaultValue());
    }
  }

  /** Configures an {@link Inbox}; defaults and limits are those of {@link InboxSettings}. Not thread-safe. */
  final class Builder {
    private final InboxStore store;
    private final String consumer;
    private Duration retention = InboxSettings.RETENTION.defaultValue();
    private Duration redeliveryHorizon = InboxSettings.REDELIVERY_HORIZON.defaultValue();
    private InboxOrdering ordering = InboxSettings.ORDERING.defaultValue();
    private Duration gapTimeout = InboxSettings.GAP_TIMEOUT.defaultValue();
    private InboxListener listener = InboxListener.NONE;

    Builder(InboxStore store, String consumer) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
      if (consumer == null) { // an IllegalArgumentException, as before the catalogue
        throw new IllegalArgumentException("consumer must be 1–" + InboxSettings.CONSUMER.maxLength()
            + " non-blank characters");
      }
      this.consumer = InboxSettings.CONSUMER.check(consumer);
    }

    /**
     * How long inbox records are kept: the window within which duplicates are recognised.
     * See {@link InboxSettings#RETENTION}. Must not be shorter than {@link #redeliveryHorizon}.
     */
    public Builder retention(Duration retention) {
      this.retention = InboxSettings.RETENTION.check(retention);
      return this;
    }

    /**
     * The longest time after which a message can still arrive again: the broker's retention plus
     * the producer's longest retry horizon. The default ({@link InboxSettings#REDELIVERY_HORIZON}) is
     * Kafka's 7-day default retention plus a day of outbox retries. Used to refuse a retention that
     * would forget ids too early.
     */
    public Builder redeliveryHorizon(Duration horizon) {
      this.redeliveryHorizon = InboxSettings.REDELIVERY_HORIZON.check(horizon);
      return this;
    }

    /**
     * The per-aggregate ordering guard (R17); see {@link InboxOrdering} for when to use which. Needs a
     * store that keeps the guard's table ({@link InboxStore#supportsOrdering()}). Default {@code NONE}.
     */
    public Builder ordering(InboxOrdering ordering) {
      this.ordering = InboxSettings.ORDERING.check(ordering);
      return this;
    }

    /**
     * With {@link InboxOrdering#DELTA}: how long a message waits for a missing earlier sequence of
     * its aggregate before it is parked. See {@link InboxSettings#GAP_TIMEOUT}.
     */
    public Builder gapTimeout(Duration gapTimeout) {
      this.gapTimeout = InboxSettings.GAP_TIMEOUT.check(gapTimeout);
      return this;
    }

    public Builder listener(InboxListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    public Inbox build() {
      // The catalogue's rule: retention >= redeliveryHorizon, worded as on every other surface.
      InboxSettings.CATALOGUE.values(Map.of(InboxSettings.RETENTION.name(), retention,
          InboxSettings.REDELIVERY_HORIZON.name(), redeliveryHorizon));
      if (ordering != InboxOrdering.NONE && !store.supportsOrdering()) {
        throw new IllegalArgumentException("ordering " + ordering + " needs a store with the ordering guard's tables;"
            + " " + store.getClass().getSimpleName() + " has none (migrate a JDBC store to schema"
            + " PostgreSQL V6 / MariaDB V5)");
      }
      return new DefaultInbox(store,
          new InboxConfig(consumer, retention, redeliveryHorizon, ordering, gapTimeout), listener);
    }
  }
}
