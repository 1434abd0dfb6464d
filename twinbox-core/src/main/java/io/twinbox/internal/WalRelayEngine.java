package io.twinbox.internal;

import io.twinbox.ChangeFeedException;
import io.twinbox.Relay;
import io.twinbox.RelayListener;
import io.twinbox.RelayStats;
import io.twinbox.TwinboxException;
import io.twinbox.WalStats;
import io.twinbox.spi.ChangeFeedStore;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay ({@code RelayMode.WAL}): streams the outbox's inserts from the store's change feed
 * (a PostgreSQL logical replication slot) instead of polling the table. Two threads: the lease keeper
 * (all partitions or none, see {@link StreamLease}) and the stream thread, which runs one {@link
 * WalStream} session while this node holds the lease and stands by otherwise. Everything after a
 * broker acknowledgement — completion, retries, FAILED, the per-aggregate hold — goes through the same
 * store calls and the same {@link WavePublisher} as the polling relay.
 *
 * <p>Thread-safe.
 */
public final class WalRelayEngine implements Relay {
  private static final Logger log = LoggerFactory.getLogger(WalRelayEngine.class);
  private static final long BACKOFF_MIN_MS = 100;
  /** A setup problem (wrong settings, slot in use by a stranger) is retried this slowly. */
  private static final long SETUP_RETRY_MS = 5_000;

  /** Settings of the WAL mode only; the rest is the relay's {@link RelayConfig}. */
  public record WalSettings(String slot, Duration sweepInterval, int maxBufferedChanges) {}

  final OutboxStore store;
  final ChangeFeedStore feeds;
  final Transport transport;
  final RelayConfig config;
  final WalSettings wal;
  final RelayListener listener;
  final StreamLease lease;
  /** Null when dead letters are off. */
  final DeadLetterLoop deadLetters;

  final AtomicLong published = new AtomicLong();
  final AtomicLong retried = new AtomicLong();
  final AtomicLong dead = new AtomicLong();
  final AtomicLong fenced = new AtomicLong();
  final AtomicLong outages = new AtomicLong();
  final AtomicLong batches = new AtomicLong();
  final AtomicLong confirms = new AtomicLong();
  final AtomicLong withheldConfirms = new AtomicLong();
  final AtomicLong sessions = new AtomicLong();
  final AtomicLong replayedDone = new AtomicLong();
  final AtomicLong streamed = new AtomicLong();
  final AtomicLong swept = new AtomicLong();

  private final ScheduledExecutorService keeper;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean running;
  private volatile boolean launched;
  private volatile ChangeFeedException fault;
  private Thread streamThread;

  public WalRelayEngine(OutboxStore store, ChangeFeedStore feeds, Transport transport, RelayConfig config,
      WalSettings wal, RelayListener listener) {
    this(store, feeds, transport, config, wal, listener, null);
  }

  /** @param deadLetters where FAILED events' dead letters go; null: dead letters off */
  public WalRelayEngine(OutboxStore store, ChangeFeedStore feeds, Transport transport, RelayConfig config,
      WalSettings wal, RelayListener listener, DeadLetterTransport deadLetters) {
    this.store = store;
    this.feeds = feeds;
    this.transport = transport;
    this.config = config;
    this.wal = wal;
    this.listener = listener;
    this.lease = new StreamLease(store, config.nodeId(), config.leaseTtl(), listener);
    this.keeper = DaemonThreads.scheduler("twinbox-wal-lease");
    this.deadLetters = deadLetters == null ? null
        : new DeadLetterLoop(store, deadLetters, config, listener, () -> lease.valid() ? lease.leases() : List.of());
  }

  /**
   * Checks the schema and the change feed's setup (creating the publication and the slot if they
   * are missing), then starts the lease keeper and the stream thread. Throws {@link
   * ChangeFeedException} naming the fix when the setup is wrong.
   */
  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("relay " + config.nodeId() + " was already started");
    }
    store.verifySchema();
    feeds.prepareChangeFeed(wal.slot());
    running = true;
    launched = true;
    keeper.scheduleAtFixedRate(lease::tick, 0, lease.tickInterval().toMillis(), TimeUnit.MILLISECONDS);
    streamThread = new Thread(this::streamLoop, "twinbox-wal-stream");
    streamThread.setDaemon(true);
    streamThread.start();
    if (deadLetters != null) {
      deadLetters.start();
    }
    log.info("WAL relay {} started on slot {}: batch {}, lease ttl {}, transport {}", config.nodeId(), wal.slot(),
        config.batchSize(), config.leaseTtl(), transport.name());
  }

  boolean running() {
    return running;
  }

  private void streamLoop() {
    long backoff = 0;
    while (running) {
      try {
        if (!lease.valid()) {
          Thread.sleep(20); // standing by: the keeper thread tries to take the lease
          continue;
        }
        sessions.incrementAndGet();
        try (WalStream session = new WalStream(this)) {
          session.run();
        }
        backoff = 0;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ChangeFeedException e) {
        if (e.problem() == ChangeFeedException.Problem.SLOT_LOST) {
          stopForLostSlot(e);
          return;
        }
        backoff = SETUP_RETRY_MS;
        log.error("WAL relay {} cannot stream slot {} ({}): {}", config.nodeId(), wal.slot(), e.problem(),
            e.getMessage());
      } catch (RuntimeException e) {
        backoff = Math.min(config.outageBackoffMax().toMillis(), Math.max(BACKOFF_MIN_MS, backoff * 2));
        log.warn("WAL relay {} stream stopped; reopening in {} ms: {}", config.nodeId(), backoff, Reasons.of(e));
      }
      pause(backoff);
    }
  }

  /**
   * The slot is gone or invalidated: the WAL it had not confirmed is unreadable, and a new slot
   * would start past it. Never stream again (a new slot is made only by an operator's new start);
   * give up the leases so that the polling relay can take over, and say so.
   */
  private void stopForLostSlot(ChangeFeedException e) {
    fault = e;
    log.error("WAL relay {} STOPPED STREAMING: {} Nothing more is published from the stream; every event not yet"
        + " published is still a row of the outbox table. See docs/runbooks.md, \"Runbook: the WAL slot was lost\".",
        config.nodeId(), e.getMessage());
    Listeners.relay(() -> listener.changeFeedLost(e));
    keeper.shutdown();
    try {
      keeper.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
    }
    lease.releaseAll();
  }

  private void pause(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (running && System.nanoTime() < deadline) {
      try {
        Thread.sleep(Math.min(50, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Stops gracefully: the stream finishes its batch, confirms what is done, stops streaming; then the
   * leases are released for an immediate hand-off to a standby. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    running = false;
    if (streamThread != null) {
      try {
        streamThread.join(config.publishTimeout().toMillis() + 10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
    keeper.shutdown();
    try {
      keeper.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (launched) {
      lease.releaseAll();
    }
    log.info("WAL relay {} stopped: {}", config.nodeId(), stats());
  }

  @Override
  public String nodeId() {
    return config.nodeId();
  }

  @Override
  public Set<Integer> partitions() {
    return lease.partitions();
  }

  @Override
  public RelayStats stats() {
    return new RelayStats(published.get(), retried.get(), dead.get(), fenced.get(), outages.get(), batches.get(),
        lease.partitions().size());
  }

  @Override
  public RelayConfig config() {
    return config;
  }

  @Override
  public Optional<TwinboxException> fault() {
    return Optional.ofNullable(fault);
  }

  @Override
  public Optional<WalStats> walStats() {
    return Optional.of(new WalStats(streamed.get(), swept.get(), confirms.get(), withheldConfirms.get(),
        sessions.get(), replayedDone.get()));
  }
}
