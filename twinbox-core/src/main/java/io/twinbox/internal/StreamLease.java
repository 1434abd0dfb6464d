package io.twinbox.internal;

import io.twinbox.RelayListener;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's right to stream: <em>all</em> partition leases of the outbox at once, or none.
 * Only one process may consume a replication slot, and holding every partition in the existing
 * lease table makes that exclusive on the database clock with the existing fencing: the store's
 * {@code complete} refuses rows of a lease whose epoch moved on, the sweep's {@code claim} returns
 * nothing without the leases, and a polling relay cannot run beside the streamer (it finds no free
 * partition). A partial acquisition (two standbys racing) is given back at once and retried after a
 * random pause, so one of them ends up with everything.
 *
 * <p>Fail-closed like {@link LeaseKeeper}: the lease counts as valid only until {@code sentAt + ttl
 * - margin} on this host's monotonic clock, {@code sentAt} being when the renewal that extended it
 * was sent. A relay that stops renewing (paused, cut off) stops publishing and confirming before
 * another one can take over. Thread-safe: the keeper thread {@linkplain #tick ticks}, the stream
 * thread reads.
 */
final class StreamLease {
  private static final Logger log = LoggerFactory.getLogger(StreamLease.class);

  private record State(List<PartitionLease> leases, long deadlineNanos) {}

  private static final State NONE = new State(List.of(), 0);

  private final OutboxStore store;
  private final String nodeId;
  private final Duration ttl;
  private final long marginNanos;
  private final RelayListener listener;
  private final int partitions;
  private volatile State state = NONE;
  private int pauseTicks;
  private boolean toldStandby;
  private long ticks;

  StreamLease(OutboxStore store, String nodeId, Duration ttl, RelayListener listener) {
    this.store = store;
    this.nodeId = nodeId;
    this.ttl = ttl;
    this.marginNanos = ttl.toNanos() / 5;
    this.listener = listener;
    this.partitions = store.partitionCount();
  }

  /**
   * How often {@link #tick} should run: a standby tries to take over every tick (a tenth of the
   * TTL), a holder renews every other tick (a fifth).
   */
  Duration tickInterval() {
    return Duration.ofMillis(Math.max(50, ttl.toMillis() / 10));
  }

  /** True while every partition is held with time to spare (checked before each publish and confirm). */
  boolean valid() {
    State s = state;
    return !s.leases().isEmpty() && s.deadlineNanos() - System.nanoTime() > marginNanos;
  }

  /**
   * The {@link System#nanoTime()} until which the stream may publish: the fail-closed deadline less
   * the safety margin, a time already past while standing by. Bounds a wave's start and its wait
   * for acknowledgements ({@link WavePublisher.Leases}).
   */
  long usableUntil() {
    State s = state;
    return s.leases().isEmpty() ? System.nanoTime() - 1 : s.deadlineNanos() - marginNanos;
  }

  /** The leases to present to the store (empty while standing by). */
  List<PartitionLease> leases() {
    return state.leases();
  }

  Set<Integer> partitions() {
    Set<Integer> out = new TreeSet<>();
    state.leases().forEach(l -> out.add(l.partition()));
    return out;
  }

  /** One round: renew what is held, or try to take everything. Never throws. */
  void tick() {
    boolean had = !state.leases().isEmpty();
    try {
      if (had) {
        if (ticks++ % 2 == 0) {
          renew(); // first: a slow heartbeat must not delay the renewal
          store.heartbeat(nodeId, ttl);
        }
      } else {
        ticks = 0;
        store.heartbeat(nodeId, ttl);
        tryAcquire();
      }
    } catch (RuntimeException e) {
      log.warn("stream lease round failed for node {}; the lease lapses unless a later round succeeds: {}",
          nodeId, Reasons.of(e));
    }
    boolean has = !state.leases().isEmpty();
    if (had != has) {
      Listeners.relay(() -> listener.leasesChanged(partitions()));
    }
  }

  private void renew() {
    State s = state;
    long sentAt = System.nanoTime();
    List<PartitionLease> kept = store.renew(nodeId, s.leases(), ttl);
    if (kept.size() == partitions) {
      state = new State(kept, sentAt + ttl.toNanos());
      return;
    }
    state = NONE;
    log.warn("node {} lost {} of its {} stream leases; it stops streaming", nodeId, partitions - kept.size(), partitions);
    if (!kept.isEmpty()) {
      store.release(nodeId, kept);
    }
  }

  private void tryAcquire() {
    if (pauseTicks > 0) {
      pauseTicks--;
      return;
    }
    long sentAt = System.nanoTime();
    List<PartitionLease> got = store.acquire(nodeId, partitions, ttl);
    if (got.size() == partitions) {
      state = new State(got, sentAt + ttl.toNanos());
      toldStandby = false;
      log.info("node {} holds all {} partitions and streams", nodeId, partitions);
      return;
    }
    if (!got.isEmpty()) {
      // All or nothing: another relay holds (or is taking) the rest. Give these back at once and
      // wait a random number of rounds, so that of two racing standbys one ends up with all.
      store.release(nodeId, got);
      pauseTicks = ThreadLocalRandom.current().nextInt(1, 4);
    }
    if (!toldStandby) {
      toldStandby = true;
      log.info("node {} stands by: another relay holds partitions of the outbox", nodeId);
    }
  }

  /** Gives every lease back (graceful stop) and forgets the node. */
  void releaseAll() {
    State s = state;
    state = NONE;
    try {
      if (!s.leases().isEmpty()) {
        store.release(nodeId, s.leases());
      }
      store.leave(nodeId);
    } catch (RuntimeException e) {
      log.warn("node {} could not release its stream leases; they expire after {}: {}", nodeId, ttl, Reasons.of(e));
    }
  }
}
