package io.twinbox.internal;

import io.twinbox.NodeIdInUseException;
import io.twinbox.RelayListener;
import io.twinbox.TwinboxException;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
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
 *
 * <p><b>One live relay per node id.</b> Leases are owned by node id, so two relays sharing one
 * would both renew and publish the same partitions. Each keeper therefore draws an instance token
 * and {@link #join() registers} it in the node row before the relay starts: a node id whose row
 * another instance keeps heartbeating is refused with {@link NodeIdInUseException}, while the row
 * of a run that crashed (its heartbeat no longer moves) is taken over once that heartbeat is older
 * than the TTL — so a restart after a crash waits at most about one TTL. Heartbeats name the
 * instance too: a relay whose node id was taken over meanwhile (it was frozen for longer than the
 * TTL) learns it at its next heartbeat, gives its leases back and stops publishing.
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
  private final Ticker ticker;
  private final Map<Integer, Held> held = new ConcurrentHashMap<>();
  /** Leases no longer handed to workers, to be released once their worker is idle. */
  private final Map<Integer, PartitionLease> releasing = new ConcurrentHashMap<>();
  /** This run's token in the node row. */
  private final String instance = UUID.randomUUID().toString();
  private volatile boolean joined;
  /** Another run took the node id over: renew only what a worker still uses, acquire nothing. */
  private volatile boolean displaced;
  /** When the last successful renewal was sent ({@code ticker.nanoTime()}); 0: none yet. Keeper thread only. */
  private long lastRenewalSentAt;

  LeaseKeeper(OutboxStore store, String nodeId, Duration ttl, RelayListener listener, IntFunction<Lock> workerLock) {
    this(store, nodeId, ttl, listener, workerLock, Ticker.SYSTEM);
  }

  LeaseKeeper(OutboxStore store, String nodeId, Duration ttl, RelayListener listener, IntFunction<Lock> workerLock,
      Ticker ticker) {
    this.ticker = ticker;
    this.store = store;
    this.nodeId = nodeId;
    this.ttl = ttl;
    this.marginNanos = ttl.toNanos() / 5;
    this.listener = listener;
    this.workerLock = workerLock;
  }

  /**
   * Registers this run under the node id; called once, before the first {@link #tick()}. Returns
   * at once unless another run's heartbeat is fresh: then it polls until that heartbeat either
   * lapses (a crashed run: taken over) or moves on (a live relay: refused). Bounded by twice the
   * TTL, since a heartbeat that does not move lapses within one.
   *
   * @throws NodeIdInUseException when a live relay runs under the node id
   */
  void join() {
    long step = Math.max(100, ttl.toMillis() / 10);
    Duration patience = ttl.multipliedBy(2);
    long deadline = ticker.nanoTime() + patience.toNanos();
    Instant seen = null;
    while (true) {
      Optional<Instant> holder = store.register(nodeId, instance, ttl);
      if (holder.isEmpty()) {
        joined = true;
        if (seen != null) {
          log.info("node {}: the previous run's heartbeat ({}) has lapsed; this run takes the node id over",
              nodeId, seen);
        }
        return;
      }
      if (seen == null) {
        seen = holder.get();
        log.info("node {}: another run heartbeated at {}; waiting up to {} to tell a crashed run (its heartbeat"
            + " lapses) from a live one (it moves on)", nodeId, seen, patience);
      } else if (!holder.get().equals(seen)) {
        throw new NodeIdInUseException(nodeId, "a relay with this node id heartbeated again (at " + seen
            + " and at " + holder.get() + ") within the lease TTL of " + ttl + ", so it is alive");
      }
      if (ticker.nanoTime() - deadline > 0) {
        throw new NodeIdInUseException(nodeId, "the heartbeat of " + seen + " neither lapsed nor moved within "
            + patience);
      }
      try {
        ticker.sleep(step);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TwinboxException("interrupted while waiting to register relay node id '" + nodeId + "'");
      }
    }
  }

  /** Leases a worker may publish with right now. */
  List<PartitionLease> usable(int worker, int workers) {
    long now = ticker.nanoTime();
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
    return usableUntil(partition) - ticker.nanoTime() > 0;
  }

  /**
   * The {@code ticker.nanoTime()} until which a partition may be published: the fail-closed
   * deadline less the safety margin; a time already past when the partition is not held. Each
   * renewal moves it on. Bounds both the start of a wave and the wait for its acknowledgements.
   */
  long usableUntil(int partition) {
    Held h = held.get(partition);
    return h == null ? ticker.nanoTime() - 1 : h.deadlineNanos() - marginNanos;
  }

  Set<Integer> partitions() {
    return new TreeSet<>(held.keySet());
  }

  /** One round: heartbeat, renew, rebalance, release. Never throws. */
  void tick() {
    Set<Integer> before = partitions();
    try {
      renew(); // first: under load a slow heartbeat must not delay the renewal
      if (displaced) {
        releaseIdle();
        return;
      }
      int live = Math.max(1, store.heartbeat(nodeId, instance, ttl));
      int target = (store.partitionCount() + live - 1) / live;
      if (held.size() < target) {
        long sentAt = ticker.nanoTime();
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
    } catch (NodeIdInUseException e) {
      displaced = true;
      log.error("node {} stops publishing and gives its leases back: {}", nodeId, e.getMessage());
      held.values().forEach(h -> releasing.put(h.lease().partition(), h.lease()));
      held.clear();
      try {
        releaseIdle();
      } catch (RuntimeException re) {
        log.warn("node {} could not release its leases; they expire after {}: {}", nodeId, ttl, Reasons.of(re));
      }
    } catch (RuntimeException e) {
      log.warn("lease round failed for node {}; leases lapse unless a later round succeeds: {}",
          nodeId, Reasons.of(e));
    }
    notifyIfChanged(before);
  }

  private void notifyIfChanged(Set<Integer> before) {
    Set<Integer> after = partitions();
    if (!after.equals(before)) {
      log.info("node {} holds {} partitions", nodeId, after.size());
      Listeners.relay(() -> listener.leasesChanged(after));
    }
  }

  private void renew() {
    if (held.isEmpty() && releasing.isEmpty()) {
      lastRenewalSentAt = 0;
      return;
    }
    long sentAt = ticker.nanoTime();
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
    reportStall(sentAt, ticker.nanoTime() - sentAt);
    for (PartitionLease l : mine) {
      if (!keptIds.contains(l.partition())) {
        held.remove(l.partition());
        releasing.remove(l.partition());
        log.warn("node {} lost the lease of partition {} (epoch {})", nodeId, l.partition(), l.epoch());
      }
    }
  }

  /**
   * Says so when a renewal came late or took long: the only ways a node loses a lease without a
   * fault in the lease statements themselves. Renewals are due every ttl/3; workers stop using a
   * lease 0.8 ttl after the renewal that extended it was sent, and the database lets another node
   * take it 1 ttl after it ran. So a gap between two renewals (sent to sent) above 0.8 ttl has
   * paused publishing, and one above 1 ttl may have handed partitions to another node, whose
   * takeover then fences this node's in-flight completions (their messages are published again).
   */
  private void reportStall(long sentAt, long tookNanos) {
    long previous = lastRenewalSentAt;
    lastRenewalSentAt = sentAt;
    long gap = previous == 0 ? 0 : sentAt - previous;
    long ttlNanos = ttl.toNanos();
    if (gap > ttlNanos - marginNanos || tookNanos > marginNanos) {
      log.warn("node {} renewed its leases {} ms after the previous renewal (due every {} ms; the renewal took {} ms;"
          + " lease ttl {} ms): this process or its database stalled (GC, CPU starvation, SIGSTOP, a slow database)."
          + " {}", nodeId, gap / 1_000_000, ttl.toMillis() / 3, tookNanos / 1_000_000, ttl.toMillis(),
          gap + tookNanos > ttlNanos
              ? "Past the ttl: another node may have taken partitions over and fenced completions."
              : gap + tookNanos > ttlNanos - marginNanos
                  ? "Past the fail-closed deadline: workers paused publishing until it returned."
                  : "No lease was at risk yet.");
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
      if (joined) {
        store.leave(nodeId, instance); // never the row of a run that took the node id over
      }
    } catch (RuntimeException e) {
      log.warn("node {} could not release its leases; they expire after {}: {}", nodeId, ttl, Reasons.of(e));
    }
  }
}
