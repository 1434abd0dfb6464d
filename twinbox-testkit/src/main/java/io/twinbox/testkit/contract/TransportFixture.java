package io.twinbox.testkit.contract;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the {@link TransportContract} needs from a transport and its broker. Implemented in a few
 * dozen lines per transport (see the Kafka, RabbitMQ and NATS modules' tests); the testkit itself
 * depends on no transport and no store. Called from the test thread only; the publishers and
 * consumers it returns must be as thread-safe as the transport's own.
 */
public interface TransportFixture extends AutoCloseable {

  /** A name for messages, e.g. {@code RabbitMQ}. */
  String name();

  /** A migrated PostgreSQL database (the Twinbox schema) for the inbox; tests run plain SQL on it. */
  DataSource dataSource();

  /** The inbox store on {@link #dataSource()}. */
  InboxStore inboxStore();

  /** The outbox store on {@link #dataSource()}, for tests that run a real relay over the transport. */
  OutboxStore outboxStore();

  /**
   * Creates a fresh, empty destination for one test — a topic; an exchange with a quorum queue
   * bound to every routing key; a stream with a durable consumer — and returns its id, which the
   * other methods take.
   *
   * @param name a short lowercase name unique to the test
   */
  String createDestination(String name);

  /** A publisher that routes every message to {@code destination}. The caller closes it. */
  Transport publisher(String destination);

  /**
   * Starts a consumer of {@code destination} that feeds {@code inbox} (on {@link #dataSource()}) and
   * {@code handler}, with {@code retry} for failing handlers. Consumers started one after the other
   * on one destination share its position (same group, queue or durable).
   */
  RunningConsumer startConsumer(String destination, Inbox inbox, InboxHandler handler, RetryPolicy retry);

  /** Messages the broker must refuse for good at once, each with the publisher to send it by. */
  List<Rejection> rejections(String destination);

  /**
   * A publisher that sends every message of aggregate type {@code lostType} to a destination that
   * does not exist on the broker — a topic on a broker that does not create topics, an exchange
   * nobody declared, a subject no stream captures — and every other message to {@code destination}.
   * The caller closes it.
   */
  MissingDestination missingDestination(String destination, String lostType);

  /** True when the broker itself drops a republished message (NATS {@code Nats-Msg-Id}). */
  boolean deduplicates();

  /**
   * Makes the broker unreachable for publishers created from now on or before (stop it, or cut a
   * proxy in front of it). False when the fixture does not (its documentation says why, e.g.
   * another test of the module covers it); the outage test is then skipped with a loud reason.
   */
  boolean interruptBroker();

  /** Ends {@link #interruptBroker()}'s outage. */
  void restoreBroker();

  /** Drops what was created. */
  @Override
  void close();

  /** A running consumer. */
  interface RunningConsumer extends AutoCloseable {
    long processed();

    long duplicates();

    long parked();

    /**
     * Stops as abruptly as the transport allows: drop the broker connection without acknowledging
     * what is in flight (a transaction that commits afterwards has its ack lost, as in a crash
     * between commit and ack), then stop. Where that is impossible, a plain stop.
     */
    void crash();

    /** Stops gracefully. */
    @Override
    void close();
  }

  /**
   * A message the broker refuses for good.
   *
   * @param publisher how to send it (the caller closes it)
   * @param message the message
   * @param reason a fragment the outcome's reason must contain (case-insensitive)
   */
  record Rejection(Transport publisher, OutboxMessage message, String reason) {}

  /**
   * A publisher with a route to nowhere.
   *
   * @param publisher the publisher (the caller closes it)
   * @param name the missing destination's name, which the reason of each failed event must contain
   */
  record MissingDestination(Transport publisher, String name) {}
}
