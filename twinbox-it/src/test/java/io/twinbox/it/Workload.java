package io.twinbox.it;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.testkit.ExpectedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Application writers: threads that each open transactions, insert a business row, write 1–3
 * outbox events on random aggregates, and commit — or roll back a share of them at random. It
 * records which events committed (with the sequence the store assigned, read back inside the
 * transaction) and which rolled back, for the {@link io.twinbox.testkit.DeliveryChecker}.
 *
 * <p>Thread-safe; one instance per scenario.
 */
final class Workload {
  static final String AGGREGATE_TYPE = "Order";

  private final DataSource dataSource;
  private final Outbox outbox;
  private final int aggregates;
  private final int events;
  private final int writers;
  private final double rollbackRate;
  private final double perSecond;
  private final long seed;

  private final AtomicInteger toWrite;
  private final AtomicLong transactions = new AtomicLong();
  private final Queue<ExpectedEvent> committed = new ConcurrentLinkedQueue<>();
  private final Queue<UUID> rolledBack = new ConcurrentLinkedQueue<>();
  private final AtomicInteger committedCount = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private CountDownLatch done;
  private volatile boolean stopped;
  private long startNanos;

  /**
   * @param events outbox events to write in all (committed and rolled back)
   * @param perSecond target rate of events per second over all writers; 0 for as fast as possible
   */
  Workload(DataSource dataSource, Outbox outbox, int aggregates, int events, int writers,
      double rollbackRate, double perSecond, long seed) {
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.aggregates = aggregates;
    this.events = events;
    this.writers = writers;
    this.rollbackRate = rollbackRate;
    this.perSecond = perSecond;
    this.seed = seed;
    this.toWrite = new AtomicInteger(events);
  }

  /** Makes the business table the writers insert into (next to the outbox rows). */
  static void createBusinessTable(DataSource ds) throws SQLException {
    Db.exec(ds, TestDb.businessTableDdl());
  }

  Workload start() {
    done = new CountDownLatch(writers);
    startNanos = System.nanoTime();
    for (int w = 0; w < writers; w++) {
      Random random = new Random(seed * 31 + w);
      Thread t = new Thread(() -> {
        try {
          run(random);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        } finally {
          done.countDown();
        }
      }, "writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    return this;
  }

  private void run(Random random) throws SQLException, InterruptedException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      while (!stopped) {
        int want = pickSize(random);
        int before = toWrite.getAndAdd(-want);
        if (before <= 0) {
          return;
        }
        int n = Math.min(want, before);
        pace(events - before + n);
        transaction(c, random, n);
      }
    }
  }

  private static int pickSize(Random random) {
    int r = random.nextInt(10);
    return r < 7 ? 1 : r < 9 ? 2 : 3;
  }

  /** Sleeps until the {@code eventIndex}-th event is due at the target rate. */
  private void pace(long eventIndex) throws InterruptedException {
    if (perSecond <= 0) {
      return;
    }
    long dueNanos = startNanos + (long) (eventIndex / perSecond * 1e9);
    long wait = dueNanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private void transaction(Connection c, Random random, int n) throws SQLException {
    List<OutboxEvent> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String aggregate = "order-" + random.nextInt(aggregates);
      batch.add(OutboxEvent.builder("OrderChanged", 1)
          .aggregate(AGGREGATE_TYPE, aggregate)
          .payload("{\"aggregate\":\"" + aggregate + "\",\"tx\":" + transactions.get() + "}")
          .build());
    }
    boolean rollback = random.nextDouble() < rollbackRate;
    List<UUID> ids;
    Map<UUID, Long> sequences;
    try {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (aggregate_id, note) VALUES (?, ?)")) {
        ps.setString(1, batch.get(0).aggregateId());
        ps.setString(2, rollback ? "rolled back" : "committed");
        ps.executeUpdate();
      }
      ids = outbox.writeAll(c, batch);
      sequences = rollback ? Map.of() : sequences(c, ids);
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
    transactions.incrementAndGet();
    if (rollback) {
      c.rollback();
      rolledBack.addAll(ids);
      return;
    }
    // A failing commit throws: the run stops and the scenario fails, never guesses an outcome.
    c.commit();
    for (int i = 0; i < n; i++) {
      UUID id = ids.get(i);
      committed.add(ExpectedEvent.ordered(id, AGGREGATE_TYPE, batch.get(i).aggregateId(), sequences.get(id)));
    }
    committedCount.addAndGet(n);
  }

  /** The sequences the store assigned, read inside the writing transaction. */
  static Map<UUID, Long> sequences(Connection c, List<UUID> ids) throws SQLException {
    Map<UUID, Long> result = new HashMap<>();
    if (TestDb.MARIADB) {
      String marks = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, sequence FROM twinbox_outbox WHERE id IN (" + marks + ")")) {
        for (int i = 0; i < ids.size(); i++) {
          ps.setString(i + 1, ids.get(i).toString());
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            result.put(UUID.fromString(rs.getString(1)), rs.getLong(2));
          }
        }
      }
    } else {
      try (PreparedStatement ps = c.prepareStatement("SELECT id, sequence FROM twinbox_outbox WHERE id = ANY(?)")) {
        ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            result.put(rs.getObject(1, UUID.class), rs.getLong(2));
          }
        }
      }
    }
    if (result.size() != ids.size()) {
      throw new IllegalStateException("wrote " + ids.size() + " events but found " + result.size());
    }
    return result;
  }

  /** Waits for all writers to finish; rethrows the first writer failure. */
  void await(Duration timeout) throws InterruptedException {
    if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      stop();
      throw new AssertionError("writers did not finish within " + timeout + ": " + progress());
    }
    Throwable e = failure.get();
    if (e != null) {
      throw new AssertionError("a writer failed", e);
    }
  }

  /** Asks the writers to stop after their current transaction. */
  void stop() {
    stopped = true;
  }

  boolean finished() {
    return done.getCount() == 0;
  }

  int committedCount() {
    return committedCount.get();
  }

  /** Events handed to writers so far (committed, rolled back or in an open transaction). */
  int started() {
    return events - Math.max(0, toWrite.get());
  }

  List<ExpectedEvent> committed() {
    return new ArrayList<>(committed);
  }

  List<UUID> rolledBack() {
    return new ArrayList<>(rolledBack);
  }

  long transactions() {
    return transactions.get();
  }

  String progress() {
    return "transactions=" + transactions.get() + " committedEvents=" + committedCount.get()
        + " rolledBackEvents=" + rolledBack.size() + " left=" + Math.max(0, toWrite.get());
  }
}
