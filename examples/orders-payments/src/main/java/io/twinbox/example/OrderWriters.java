package io.twinbox.example;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's customers: threads that place orders through {@link OrderService#placeOrder}, each
 * order for a random customer {@code c-1} … {@code c-<customers>} and a random amount of 1.00 to
 * 50.00, optionally paced to a rate. Under chaos some orders get a repeated {@code OrderCreated}.
 * The same seed gives the same orders.
 *
 * <p>Thread-safe to read the counters while running.
 */
final class OrderWriters {
  /** Smallest and largest order amount, in cents. */
  static final long MIN_CENTS = 100;
  static final long MAX_CENTS = 5_000;

  private final OrderService orders;
  private final int total;
  private final int customers;
  private final int ratePerSecond;
  private final long seed;
  private final Chaos chaos;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger placed = new AtomicInteger();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private long startNanos;
  private long finishedNanos;

  OrderWriters(OrderService orders, int total, int customers, int ratePerSecond, long seed, Chaos chaos) {
    this.orders = orders;
    this.total = total;
    this.customers = customers;
    this.ratePerSecond = ratePerSecond;
    this.seed = seed;
    this.chaos = chaos;
  }

  /** The average order amount, in cents. */
  static long averageCents() {
    return (MIN_CENTS + MAX_CENTS) / 2;
  }

  void start(int writers) {
    startNanos = System.nanoTime();
    for (int w = 0; w < writers; w++) {
      Thread t = new Thread(this::write, "order-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Waits for all orders to be placed; rethrows the first failure. */
  void await() throws Exception {
    for (Thread t : threads) {
      t.join();
    }
    finishedNanos = System.nanoTime();
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  /** From {@link #start} to the end of {@link #await}: how long placing the orders took. */
  Duration placing() {
    return Duration.ofNanos(finishedNanos - startNanos);
  }

  /** Orders committed so far. */
  int placed() {
    return placed.get();
  }

  private void write() {
    int i;
    while (failure.get() == null && (i = next.getAndIncrement()) < total) {
      pace(i);
      SplittableRandom random = new SplittableRandom(seed * 1_000_003L + i);
      String customer = "c-" + (1 + random.nextInt(customers));
      long amount = random.nextLong(MIN_CENTS, MAX_CENTS + 1);
      try {
        UUID id = orders.placeOrder(customer, amount);
        placed.incrementAndGet();
        if (chaos.resendThisOrder()) {
          orders.resendOrderCreated(id);
        }
      } catch (Exception e) {
        failure.compareAndSet(null, e);
      }
    }
  }

  /** Waits until order {@code i} is due at the configured rate (no wait when unpaced). */
  private void pace(int i) {
    if (ratePerSecond <= 0) {
      return;
    }
    long due = startNanos + TimeUnit.SECONDS.toNanos(i) / ratePerSecond;
    long wait;
    while ((wait = due - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }
}
