package io.twinbox.internal;

import io.twinbox.RelayListener;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds this node's partition leases: renews them, takes a fair share of the partitions, gives
 * surplus back. Runs on its own thread so that slow publishing never delays a renewal.
 *
 * <p>Fail-closed: a lease counts as usable only until {@code sentAt + ttl - margin} on this host's
 * monotonic clock, where {@code sentAt} is when the renewal that extended it was <em>sent</em>. The
 * database computed its expiry later than that, so the local deadline always falls before the
 * real one. If renewals fail, the deadline passes and workers stop publishing the partition
 * before another node may take it over.
 */
final class LeaseKeeper {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  private record Held(PartitionLease lease, long deadlineNanos) {}

  private final OutboxStore store;
  private final String nodeId;
  private final Duration ttl;
  private final long marginNanos;
  private final RelayListener listener;
  /** Returns the lock of the worker that owns a partition; held while the worker uses it. */
  private final IntFunction<Lock> workerLock;
  private final Map<Integer, Held> held = new ConcurrentHashMap<>();
  /** Leases no longer handed to workers, to be released once their worker is idle. */
  private final Map<Integer, PartitionLease> releasing = new ConcurrentHashMap<>();

  LeaseKeeper(OutboxStore store, String nodeId, Duration ttl, RelayListener listener, IntFunction<Lock> workerLock) {
    this.store = store;
    this.nodeId = nodeId;
    this.ttl = ttl;
    this.marginNanos = ttl.toNanos() / 5;
    this.listener = listener;
    this.workerLock = workerLock;
  }

  /** Leases a worker may publish with right now. */
  List<PartitionLease> usable(int worker, int workers) {
    long now = System.nanoTime();
    List<PartitionLease> result = new ArrayList<>();
    for (Held h : held.values()) {
      if (h.lease().partition() % workers == worker && h.deadlineNanos() - now > marginNanos) {
        result.add(h.lease());
      }
    }
    return result;
  }

  /** Whether a partition may still be published (checked before every wave). */
  boolean valid(int partition) {
    Held h = held.get(partition);
    return h != null && h.deadlineNanos() - System.nanoTime() > marginNanos;
  }

  Set<Integer> partitions() {
    return new TreeSet<>(held.keySet());
  }

  /** One round: heartbeat, renew, rebalance, release. Never throws. */
  void tick() {
    Set<Integer> before = partitions();
    try {
      renew(); // first: under load a slow heartbeat must not delay the renewal
      int live = Math.max(1, store.heartbeat(nodeId, ttl));
      int target = (store.partitionCount() + live - 1) / live;
      if (held.size() < target) {
        long sentAt = System.nanoTime();
        for (PartitionLease l : store.acquire(nodeId, target - held.size(), ttl)) {
          held.put(l.partition(), new Held(l, sentAt + ttl.toNanos()));
        }
      } else if (held.size() > target) {
        held.values().stream()
            .map(Held::lease)
            .sorted(Comparator.comparingInt(PartitionLease::partition).reversed())
            .limit(held.size() - target)
            .forEach(l -> {
              held.remove(l.partition());
              releasing.put(l.partition(), l);
            });
      }
      releaseIdle();
    } catch (RuntimeException e) {
      log.warn("lease round failed for node {}; leases lapse unless a later round succeeds: {}",
          nodeId, Reasons.of(e));
    }
    Set<Integer> after = partitions();
    if (!after.equals(before)) {
      log.info("node {} holds {} partitions", nodeId, after.size());
      try {
        listener.leasesChanged(after);
      } catch (RuntimeException e) {
        log.warn("listener failed: {}", Reasons.of(e));
      }
    }
  }

  private void renew() {
    if (held.isEmpty() && releasing.isEmpty()) {
      return;
    }
    long sentAt = System.nanoTime();
    // Leases waiting for release are renewed too: their worker may still be completing a batch.
    List<PartitionLease> mine = new ArrayList<>(releasing.values());
    held.values().forEach(h -> mine.add(h.lease()));
    Set<Integer> keptIds = new TreeSet<>();
    for (PartitionLease l : store.renew(nodeId, mine, ttl)) {
      keptIds.add(l.partition());
      if (!releasing.containsKey(l.partition())) {
        held.put(l.partition(), new Held(l, sentAt + ttl.toNanos()));
      }
    }
    for (PartitionLease l : mine) {
      if (!keptIds.contains(l.partition())) {
        held.remove(l.partition());
        releasing.remove(l.partition());
        log.warn("node {} lost the lease of partition {} (epoch {})", nodeId, l.partition(), l.epoch());
      }
    }
  }

  private void releaseIdle() {
    List<PartitionLease> ready = new ArrayList<>();
    for (PartitionLease l : releasing.values()) {
      Lock lock = workerLock.apply(l.partition());
      // The worker holds its lock for a whole claim-publish-complete round; a free lock means no
      // batch of this partition is in flight, and none can start: the lease left `held` first.
      if (lock.tryLock()) {
        lock.unlock();
        ready.add(l);
      }
    }
    if (!ready.isEmpty()) {
      store.release(nodeId, ready);
      ready.forEach(l -> releasing.remove(l.partition()));
    }
  }

  /** Gives every lease back (graceful shutdown; workers have stopped). */
  void releaseAll() {
    List<PartitionLease> all = new ArrayList<>(releasing.values());
    held.values().forEach(h -> all.add(h.lease()));
    held.clear();
    releasing.clear();
    try {
      if (!all.isEmpty()) {
        store.release(nodeId, all);
      }
      store.leave(nodeId);
    } catch (RuntimeException e) {
      log.warn("node {} could not release its leases; they expire after {}: {}", nodeId, ttl, Reasons.of(e));
    }
  }
}
