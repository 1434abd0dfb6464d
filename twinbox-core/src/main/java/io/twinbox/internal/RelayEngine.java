package io.twinbox.internal;

import io.twinbox.Relay;
import io.twinbox.RelayListener;
import io.twinbox.RelayStats;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.Transport;
import io.twinbox.spi.UndecodableRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: a lease keeper thread plus {@code workers} worker threads. Worker {@code w} serves the
 * held partitions {@code p} with {@code p % workers == w}, so no two workers of a node ever touch
 * one partition, and leases keep other nodes out. One round of a worker: claim due rows (short
 * read), publish them in waves outside any transaction, complete them in one fenced transaction.
 */
public final class RelayEngine implements Relay {
  private static final Logger log = LoggerFactory.getLogger(RelayEngine.class);
  private static final long OUTAGE_BACKOFF_MIN_MS = 100;
  /** First idle wait after work was found; doubles per empty claim up to the poll interval. */
  private static final long IDLE_WAIT_MIN_MS = 10;

  private final OutboxStore store;
  private final Transport transport;
  private final RelayConfig config;
  private final RelayListener listener;
  private final LeaseKeeper leases;
  private final ReentrantLock[] workerLocks;
  private final Semaphore[] wakeUps;
  private final Ticker ticker;
  private final List<Thread> threads = new ArrayList<>();
  private final ScheduledExecutorService keeperThread;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean running;
  private AutoCloseable writeSubscription = () -> {};
  /** Null when dead letters are off. */
  private final DeadLetterLoop deadLetters;

  private final AtomicLong published = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong dead = new AtomicLong();
  private final AtomicLong fenced = new AtomicLong();
  private final AtomicLong outages = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();

  public RelayEngine(OutboxStore store, Transport transport, RelayConfig config, RelayListener listener) {
    this(store, transport, config, listener, null);
  }

  /** @param deadLetters where FAILED events' dead letters go; null: dead letters off */
  public RelayEngine(OutboxStore store, Transport transport, RelayConfig config, RelayListener listener,
      DeadLetterTransport deadLetters) {
    this(store, transport, config, listener, deadLetters, Ticker.SYSTEM);
  }

  /**
   * @param ticker the clock of the lease deadlines and the publish waits; {@link Ticker#SYSTEM} but in
   *     core's simulation, which drives the engine through {@link #joinWithoutThreads},
   *     {@link #keeperTick} and {@link #round} instead of {@link #start}
   */
  public RelayEngine(OutboxStore store, Transport transport, RelayConfig config, RelayListener listener,
      DeadLetterTransport deadLetters, Ticker ticker) {
    this.ticker = ticker;
    this.store = store;
    this.transport = transport;
    this.config = config;
    this.listener = listener;
    int n = config.workers();
    this.workerLocks = new ReentrantLock[n];
    this.wakeUps = new Semaphore[n];
    for (int i = 0; i < n; i++) {
      workerLocks[i] = new ReentrantLock();
      wakeUps[i] = new Semaphore(0);
    }
    this.leases = new LeaseKeeper(store, config.nodeId(), config.leaseTtl(), listener,
        p -> workerLocks[p % n], ticker);
    this.keeperThread = DaemonThreads.scheduler("twinbox-lease-keeper");
    this.deadLetters = deadLetters == null ? null
        : new DeadLetterLoop(store, deadLetters, config, listener, () -> leases.usable(0, 1));
  }

  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("relay " + config.nodeId() + " was already started");
    }
    store.verifySchema();
    leases.join(); // refuses a node id a live relay uses; may wait ~1 TTL after a crash of this node
    running = true;
    writeSubscription = store.onWrite(this::wakeAll);
    long period = Math.max(100, config.leaseTtl().toMillis() / 3);
    // Fixed rate, not fixed delay: a slow round must not stretch the renewal cadence.
    keeperThread.scheduleAtFixedRate(this::keeperTick, 0, period, TimeUnit.MILLISECONDS);
    for (int w = 0; w < config.workers(); w++) {
      int worker = w;
      Thread t = new Thread(() -> workLoop(worker), "twinbox-relay-" + worker);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    if (deadLetters != null) {
      deadLetters.start();
    }
    log.info("relay {} started: {} workers, batch {}, lease ttl {}, transport {}", config.nodeId(),
        config.workers(), config.batchSize(), config.leaseTtl(), transport.name());
  }

  /**
   * Registers the node id as {@link #start} does, and starts no thread: the caller (core's
   * simulation) then calls {@link #keeperTick} and {@link #round} itself, in an order it chooses.
   * A crash is dropping the engine without {@link #close}; a graceful stop is {@link #close}.
   */
  public void joinWithoutThreads() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("relay " + config.nodeId() + " was already started");
    }
    leases.join();
    running = true;
  }

  /** One lease round: renew, rebalance, release (what the keeper thread runs every ttl/3). */
  public void keeperTick() {
    boolean hadNone = leases.partitions().isEmpty();
    leases.tick();
    if (hadNone && !leases.partitions().isEmpty()) {
      wakeAll();
    }
  }

  private void wakeAll() {
    for (Semaphore s : wakeUps) {
      if (s.availablePermits() == 0) {
        s.release();
      }
    }
  }

  private void workLoop(int worker) {
    long outageBackoff = 0;
    long idleWait = config.pollInterval().toMillis();
    while (running) {
      try {
        Round r = round(worker);
        if (r.outage) {
          outageBackoff = Math.min(config.outageBackoffMax().toMillis(),
              Math.max(OUTAGE_BACKOFF_MIN_MS, outageBackoff * 2));
          pauseIgnoringWrites(worker, outageBackoff);
        } else {
          outageBackoff = 0;
          // Adaptive polling: a full batch claims again at once; after a partial batch more work
          // is likely soon, so wait briefly; every empty claim doubles the wait up to pollInterval.
          // A commit notification (where the store has them) ends any wait at once.
          if (r.found == 0) {
            sleepOrWake(worker, idleWait);
            idleWait = Math.min(config.pollInterval().toMillis(), idleWait * 2);
          } else if (!r.full) {
            idleWait = Math.min(config.pollInterval().toMillis(), IDLE_WAIT_MIN_MS);
            sleepOrWake(worker, idleWait);
          } else {
            idleWait = Math.min(config.pollInterval().toMillis(), IDLE_WAIT_MIN_MS);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        outageBackoff = Math.min(config.outageBackoffMax().toMillis(),
            Math.max(OUTAGE_BACKOFF_MIN_MS, outageBackoff * 2));
        log.warn("relay {} worker {} round failed; retrying in {} ms: {}", config.nodeId(), worker,
            outageBackoff, Reasons.of(e));
        try {
          pauseIgnoringWrites(worker, outageBackoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * What one claim-publish-complete round of a worker came to: rows claimed, whether that was a full
   * batch, whether the broker was unavailable.
   */
  public record Round(int found, boolean full, boolean outage) {}

  /** One round of worker {@code worker}: claim, publish in waves, complete. Throws what the store throws. */
  public Round round(int worker) throws InterruptedException {
    ReentrantLock lock = workerLocks[worker];
    lock.lock();
    try {
      List<PartitionLease> mine = leases.usable(worker, config.workers());
      if (mine.isEmpty()) {
        return new Round(0, false, false);
      }
      List<ClaimedRow> claimed = store.claim(config.nodeId(), mine, config.batchSize());
      if (claimed.isEmpty()) {
        return new Round(0, false, false);
      }
      batches.incrementAndGet();
      // Rows the store could not decode go to FAILED in this round's completion, by position and
      // fenced like the rest; they hold back only their own aggregate's later rows.
      ClaimedBatch batch = ClaimedBatch.of(claimed);
      WavePublisher.Result r = new WavePublisher(transport, config.retryPolicy(), config.publishTimeout(),
          config.source(), deadLetters != null, ticker).publish(batch.messages(), leases::usableUntil);
      Completion c = store.complete(config.nodeId(), mine, r.published(), batch.failures(r.failed()),
          config.completionMode());
      accountUndecodable(batch);
      account(r, c);
      return new Round(claimed.size(), claimed.size() >= config.batchSize(), r.outage() != null);
    } finally {
      lock.unlock();
    }
  }

  private void accountUndecodable(ClaimedBatch batch) {
    for (UndecodableRow u : batch.undecodable()) {
      dead.incrementAndGet();
      // Only what the store made safe to print: the row's fields may be what is wrong with it.
      log.error("outbox row at position {} (partition {}, id {}) cannot be decoded and went to FAILED: {}",
          u.position(), u.partition(), u.id(), u.reason());
      Listeners.relay(() -> listener.undecodable(u));
    }
  }

  private void account(WavePublisher.Result r, Completion c) {
    if (c.fenced() > 0) {
      fenced.addAndGet(c.fenced());
      log.warn("relay {}: {} completions fenced (lease lost); those messages will be republished",
          config.nodeId(), c.fenced());
      Listeners.relay(() -> listener.fenced(c.fenced()));
    }
    published.addAndGet(Math.min(r.published().size(), c.completed()));
    if (!r.published().isEmpty()) {
      Listeners.relay(() -> listener.published(r.published()));
    }
    for (WavePublisher.Failure f : r.failures()) {
      boolean isDead = f.record().dead();
      (isDead ? dead : retried).incrementAndGet();
      OutboxMessage m = f.message();
      String reason = f.reason();
      if (isDead && deadLetters != null) {
        deadLetters.wake();
      }
      if (isDead) {
        log.error("message {} ({} {}/{}) FAILED after {} attempts: {}", m.id(), m.type(), m.aggregateType(),
            m.aggregateId(), m.attempts() + 1, reason);
      }
      Listeners.relay(() -> listener.publishFailed(m, reason, isDead));
    }
    if (r.outage() != null) {
      outages.incrementAndGet();
      log.warn("relay {}: broker unavailable, backing off without using attempts: {}", config.nodeId(), r.outage());
      Listeners.relay(() -> listener.transportUnavailable(r.outage()));
    }
  }


  /**
   * A back-off that commit notifications must not cut short: while the broker or the database is
   * down, every commit would otherwise trigger another failing round. Only {@link #close()} ends it.
   */
  private void pauseIgnoringWrites(int worker, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long left;
    while (running && (left = deadline - System.nanoTime()) > 0) {
      wakeUps[worker].tryAcquire(left, TimeUnit.NANOSECONDS);
    }
    wakeUps[worker].drainPermits();
  }

  private void sleepOrWake(int worker, long millis) throws InterruptedException {
    if (wakeUps[worker].tryAcquire(millis, TimeUnit.MILLISECONDS)) {
      wakeUps[worker].drainPermits();
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    running = false;
    wakeAll();
    for (Thread t : threads) {
      try {
        t.join(config.publishTimeout().toMillis() + 5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
    try {
      writeSubscription.close();
    } catch (Exception e) {
      log.debug("closing the write subscription failed: {}", Reasons.of(e));
    }
    keeperThread.shutdown();
    try {
      keeperThread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (started.get()) {
      leases.releaseAll();
    }
    log.info("relay {} stopped: {}", config.nodeId(), stats());
  }

  @Override
  public String nodeId() {
    return config.nodeId();
  }

  @Override
  public Set<Integer> partitions() {
    return leases.partitions();
  }

  @Override
  public RelayStats stats() {
    return new RelayStats(published.get(), retried.get(), dead.get(), fenced.get(), outages.get(),
        batches.get(), leases.partitions().size());
  }

  @Override
  public RelayConfig config() {
    return config;
  }
}
