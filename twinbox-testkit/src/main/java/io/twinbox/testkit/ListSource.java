package io.twinbox.testkit;

import io.twinbox.InboxConsumer;
import io.twinbox.InboxMessage;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;

/**
 * A {@link MessageSource} over a fixed list, for driving core's public {@link InboxConsumer} in
 * tests without a broker: it hands out all its items as one batch, then nothing, and counts what
 * the consumer settles (brings to a committed end, processed or parked). {@link #runAtMost} runs a
 * consumer over it until every item is settled or a time limit passes — the bound the inbox's
 * "nothing holds a queue for good" guarantees are checked against.
 *
 * <p>Single use: one source, one run. Settling is called on the consumer's thread; the counters
 * may be read from any thread.
 */
public final class ListSource implements MessageSource {
  private final List<ReceivedMessage> items;
  private final AtomicInteger settled = new AtomicInteger();
  private final AtomicInteger parked = new AtomicInteger();
  private volatile boolean fetched;
  private volatile boolean used;
  private volatile InboxConsumer.Stats stats;

  /** A source of {@code items}, in order, as one batch. */
  public ListSource(List<ReceivedMessage> items) {
    this.items = List.copyOf(Objects.requireNonNull(items, "items cannot be null"));
  }

  /** A source of decoded first deliveries of {@code messages}, in order. */
  public static ListSource of(InboxMessage... messages) {
    List<ReceivedMessage> items = new ArrayList<>(messages.length);
    for (InboxMessage m : messages) {
      items.add(received(m));
    }
    return new ListSource(items);
  }

  /** A decoded message, delivered for the first time, received now. */
  public static ReceivedMessage received(InboxMessage message) {
    return new ReceivedMessage(message, null, false, Instant.now());
  }

  /**
   * An item that could not be decoded, as a broker source passes it: the stand-in to park and why
   * it was refused.
   */
  public static ReceivedMessage undecodable(InboxMessage standIn, String reason) {
    return new ReceivedMessage(standIn, Objects.requireNonNull(reason, "reason cannot be null"), false, Instant.now());
  }

  /**
   * Runs a consumer of this source, configured by {@code settings} (inbox and handler at least),
   * until every item is settled or {@code limit} has passed, then closes it.
   *
   * @return how many items the consumer settled (the leading ones, in order)
   */
  public int runAtMost(Duration limit, UnaryOperator<InboxConsumer.SourceBuilder> settings)
      throws InterruptedException {
    if (used) {
      throw new IllegalStateException("a ListSource runs once; make a new one");
    }
    used = true;
    long deadline = System.nanoTime() + limit.toNanos();
    try (InboxConsumer consumer = settings.apply(InboxConsumer.builder(this)).build()) {
      consumer.start();
      while (settled.get() < items.size() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      consumer.close();
      stats = consumer.stats();
    }
    return settled.get();
  }

  /** How many items the consumer settled so far. */
  public int settled() {
    return settled.get();
  }

  /** How many of the settled items the consumer parked rather than processed. */
  public int parked() {
    return parked.get();
  }

  /** The consumer's counters once {@link #runAtMost} closed it. */
  public InboxConsumer.Stats stats() {
    if (stats == null) {
      throw new IllegalStateException("no run has ended yet");
    }
    return stats;
  }

  @Override
  public String name() {
    return "list";
  }

  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (fetched) {
      Thread.sleep(10);
      return List.of();
    }
    fetched = true;
    return items;
  }

  @Override
  public void settle(int from, int to, IntPredicate isParked) {
    if (from != settled.get() || to <= from || to > items.size()) {
      throw new IllegalStateException("settled [" + from + ", " + to + ") after " + settled.get() + " of "
          + items.size() + " items: ranges must follow each other");
    }
    for (int i = from; i < to; i++) {
      if (isParked.test(i)) {
        parked.incrementAndGet();
      }
    }
    settled.set(to);
  }

  @Override
  public void giveBack(int done) {
    // Nothing to hand back: the list is not fetched again.
  }

  @Override
  public long sessions() {
    return 1;
  }

  @Override
  public void close() {}
}
