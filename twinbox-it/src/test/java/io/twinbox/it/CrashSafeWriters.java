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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Application writers that go on through a database crash (FAULTS B9), at a steady rate until
 * {@link #stop()}: each transaction inserts a business row carrying a unique token and 1–2 outbox
 * events. A transaction that fails before its commit was sent is rolled back for sure; one whose
 * commit failed has an unknown outcome until {@link #resolve()} looks for its token in the business
 * table (committed if and only if its row is there). Events whose outcome is still unknown are
 * neither expected nor forbidden, so the check never guesses.
 *
 * <p>Thread-safe; one instance per scenario.
 */
final class CrashSafeWriters {
  private record Pending(String token, List<ExpectedEvent> events) {}

  private final DataSource dataSource;
  private final Outbox outbox;
  private final int aggregates;
  private final int writers;
  private final double perSecond;
  private final int payloadChars;
  private final long seed;

  private final Queue<ExpectedEvent> committed = new ConcurrentLinkedQueue<>();
  private final Queue<UUID> rolledBack = new ConcurrentLinkedQueue<>();
  private final Queue<Pending> unknown = new ConcurrentLinkedQueue<>();
  private final AtomicInteger committedCount = new AtomicInteger();
  private final AtomicLong failedTransactions = new AtomicLong();
  private final AtomicLong eventIndex = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;
  private long startNanos;
  private int unknownCommitted;
  private int unknownRolledBack;

  /**
   * @param perSecond target rate of events per second over all writers
   * @param payloadChars length of a random filler in each payload (0 for none): large payloads make
   *     the replication stream carry many bytes per change
   */
  CrashSafeWriters(DataSource dataSource, Outbox outbox, int aggregates, int writers, double perSecond,
      int payloadChars, long seed) {
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.aggregates = aggregates;
    this.writers = writers;
    this.perSecond = perSecond;
    this.payloadChars = payloadChars;
    this.seed = seed;
  }

  CrashSafeWriters start() {
    startNanos = System.nanoTime();
    for (int w = 0; w < writers; w++) {
      Random random = new Random(seed * 31 + w);
      Thread t = new Thread(() -> {
        try {
          run(random);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "crash-safe-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    return this;
  }

  private void run(Random random) throws InterruptedException {
    while (!stopped) {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        while (!stopped) {
          int n = random.nextInt(10) < 7 ? 1 : 2;
          pace(eventIndex.getAndAdd(n) + n);
          transaction(c, random, n);
        }
      } catch (SQLException down) {
        failedTransactions.incrementAndGet();
        TimeUnit.MILLISECONDS.sleep(200); // the database is down or restarting: a new connection later
      }
    }
  }

  private void pace(long index) throws InterruptedException {
    long wait = startNanos + (long) (index / perSecond * 1e9) - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private void transaction(Connection c, Random random, int n) throws SQLException {
    String token = UUID.randomUUID().toString();
    List<OutboxEvent> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String aggregate = "order-" + random.nextInt(aggregates);
      batch.add(OutboxEvent.builder("OrderChanged", 1).aggregate(Workload.AGGREGATE_TYPE, aggregate)
          .payload("{\"aggregate\":\"" + aggregate + "\",\"pad\":\"" + filler(random) + "\"}").build());
    }
    List<UUID> ids = List.of();
    Map<UUID, Long> sequences;
    try {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (aggregate_id, note) VALUES (?, ?)")) {
        ps.setString(1, batch.get(0).aggregateId());
        ps.setString(2, token);
        ps.executeUpdate();
      }
      ids = outbox.writeAll(c, batch);
      sequences = Workload.sequences(c, ids);
    } catch (SQLException | RuntimeException | AssertionError e) {
      // AssertionError: pgjdbc asserts on a connection that broke inside a batch (tests run with -ea)
      rolledBack.addAll(ids); // the commit was never sent: these rows can never become visible
      throw e instanceof SQLException s ? s : new SQLException(e);
    }
    List<ExpectedEvent> events = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      UUID id = ids.get(i);
      events.add(ExpectedEvent.ordered(id, Workload.AGGREGATE_TYPE, batch.get(i).aggregateId(), sequences.get(id)));
    }
    try {
      c.commit();
    } catch (SQLException e) {
      unknown.add(new Pending(token, events));
      throw e;
    }
    committed.addAll(events);
    committedCount.addAndGet(n);
  }

  private String filler(Random random) {
    byte[] b = new byte[payloadChars / 2];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** Stops the writers and waits for them; rethrows what failed a writer other than the database. */
  void stop(Duration timeout) throws InterruptedException {
    stopped = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (t.isAlive()) {
        throw new IllegalStateException("writer " + t.getName() + " still running after " + timeout);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a writer failed", failure.get());
    }
  }

  /** After {@link #stop}, with the database up: settles every commit of unknown outcome by its token. */
  void resolve() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM orders WHERE note = ?")) {
      for (Pending p; (p = unknown.poll()) != null; ) {
        ps.setString(1, p.token());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            committed.addAll(p.events());
            committedCount.addAndGet(p.events().size());
            unknownCommitted++;
          } else {
            p.events().forEach(e -> rolledBack.add(e.id()));
            unknownRolledBack++;
          }
        }
      }
    }
  }

  int committedCount() {
    return committedCount.get();
  }

  List<ExpectedEvent> committed() {
    return List.copyOf(committed);
  }

  List<UUID> rolledBack() {
    return List.copyOf(rolledBack);
  }

  /** Connections lost to a database failure (each ended a transaction). */
  long failedTransactions() {
    return failedTransactions.get();
  }

  /** {@code committed/rolledBack} counts of the commits whose outcome {@link #resolve()} settled. */
  String unknownOutcomes() {
    return unknownCommitted + "/" + unknownRolledBack;
  }
}
