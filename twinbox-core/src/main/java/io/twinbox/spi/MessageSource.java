package io.twinbox.spi;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * Where an {@link io.twinbox.InboxConsumer} gets its messages: one broker subscription (Kafka
 * topics, a RabbitMQ queue, a JetStream durable consumer). The consumer owns the loop, the
 * transactions, retries and parking; a source only fetches, decodes (through {@link WireEvents})
 * and settles on the broker.
 *
 * <p>The contract, per fetched batch: the consumer calls {@link #settle} after each database commit
 * for the items that commit brought to an end, in order, and — if it stops before the end of the
 * batch — {@link #giveBack} once for the rest. A source must never acknowledge an item before
 * {@code settle} names it: that is what makes a crash a redelivery instead of a loss. Items of one
 * batch must be in the broker's order for one aggregate (one partition, one queue, one stream).
 *
 * <p>Threading: {@link #fetch}, {@link #settle}, {@link #giveBack} and {@link #close} are called on
 * the consumer's one thread; {@link #wakeup}, {@link #sessions} and {@link #terminated} may be
 * called from any thread.
 */
public interface MessageSource extends AutoCloseable {

  /** A short name for thread names and logs, e.g. {@code kafka}. */
  String name();

  /**
   * The next items, in order, after waiting a short while (the source's poll timeout); empty when
   * none arrived, when (re)connecting failed (after a pause), or when woken up. Never {@code null}.
   * Connection trouble is the source's to handle: log, reconnect, return empty.
   */
  List<ReceivedMessage> fetch() throws InterruptedException;

  /**
   * Items {@code [from, to)} of the latest batch are committed in the database: acknowledge them
   * (Kafka: the offset after {@code to - 1}; RabbitMQ: an ack up to it; NATS: each one).
   *
   * @param parked which items of the batch, by index, were parked rather than processed (NATS
   *     terminates those)
   */
  void settle(int from, int to, IntPredicate parked);

  /**
   * The consumer stopped part-way: items from {@code done} on were not reached. Give them back so
   * they come again soon (NATS: nak; Kafka: seek back), or do nothing if closing does that.
   */
  void giveBack(int done);

  /** Makes a blocked {@link #fetch} return soon; called from another thread by {@code close()}. */
  default void wakeup() {}

  /** How many times the source started delivering: connections, subscriptions or partition assignments. */
  long sessions();

  /** Parked items the source terminated on the broker (NATS {@code term()}); 0 where there is no such thing. */
  default long terminated() {
    return 0;
  }

  /** Releases the broker resources; unacknowledged items go back to the broker. */
  @Override
  void close();
}
