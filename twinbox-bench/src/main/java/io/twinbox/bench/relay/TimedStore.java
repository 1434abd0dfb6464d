package io.twinbox.bench.relay;

import io.twinbox.CompletionMode;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decorates the relay's {@link OutboxStore} to time where a relay round spends its time, through
 * the public SPI only: {@code claim} (DB), the gap between the end of a claim and the start of its
 * {@code complete} on the same worker thread (publishing: encode, send, wait for the broker's
 * acks), and {@code complete} (DB). With {@code notifications=false} it hides the store's
 * LISTEN/NOTIFY wake-ups from the relay, which then relies on its poll interval.
 */
public final class TimedStore implements OutboxStore {
  private final OutboxStore delegate;
  private final boolean notifications;
  private final ThreadLocal<long[]> claimEnd = ThreadLocal.withInitial(() -> new long[1]);

  final LongAdder claimNanos = new LongAdder();
  final LongAdder claims = new LongAdder();
  final LongAdder emptyClaims = new LongAdder();
  final LongAdder claimedRows = new LongAdder();
  final LongAdder publishNanos = new LongAdder();
  final LongAdder completeNanos = new LongAdder();
  final LongAdder completes = new LongAdder();
  final LongAdder leaseNanos = new LongAdder();
  final LongAdder wakeUps = new LongAdder();

  public TimedStore(OutboxStore delegate, boolean notifications) {
    this.delegate = delegate;
    this.notifications = notifications;
  }

  /** A snapshot of the counters. */
  public Profile profile() {
    return new Profile(claims.sum(), emptyClaims.sum(), claimedRows.sum(), claimNanos.sum(),
        publishNanos.sum(), completes.sum(), completeNanos.sum(), leaseNanos.sum(), wakeUps.sum());
  }

  /** Totals since creation; times in nanoseconds summed over all worker threads. */
  public record Profile(long claims, long emptyClaims, long claimedRows, long claimNanos, long publishNanos,
      long completes, long completeNanos, long leaseNanos, long wakeUps) {
    public Profile minus(Profile o) {
      return new Profile(claims - o.claims, emptyClaims - o.emptyClaims, claimedRows - o.claimedRows,
          claimNanos - o.claimNanos, publishNanos - o.publishNanos, completes - o.completes,
          completeNanos - o.completeNanos, leaseNanos - o.leaseNanos, wakeUps - o.wakeUps);
    }
  }

  @Override
  public List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
    long t0 = System.nanoTime();
    List<ClaimedRow> rows = delegate.claim(nodeId, leases, limit);
    long t1 = System.nanoTime();
    claimNanos.add(t1 - t0);
    claims.increment();
    if (rows.isEmpty()) {
      emptyClaims.increment();
    } else {
      claimedRows.add(rows.size());
    }
    claimEnd.get()[0] = t1;
    return rows;
  }

  @Override
  public Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode) {
    long t0 = System.nanoTime();
    long end = claimEnd.get()[0];
    if (end != 0) {
      publishNanos.add(t0 - end);
      claimEnd.get()[0] = 0;
    }
    Completion c = delegate.complete(nodeId, leases, published, failed, mode);
    completeNanos.add(System.nanoTime() - t0);
    completes.increment();
    return c;
  }

  @Override
  public AutoCloseable onWrite(Runnable callback) {
    if (!notifications) {
      return () -> {};
    }
    return delegate.onWrite(() -> {
      wakeUps.increment();
      callback.run();
    });
  }

  @Override
  public int partitionCount() {
    return delegate.partitionCount();
  }

  @Override
  public void verifySchema() {
    delegate.verifySchema();
  }

  @Override
  public void append(Connection connection, List<PreparedEvent> events) {
    delegate.append(connection, events);
  }

  @Override
  public int heartbeat(String nodeId, Duration ttl) {
    long t0 = System.nanoTime();
    try {
      return delegate.heartbeat(nodeId, ttl);
    } finally {
      leaseNanos.add(System.nanoTime() - t0);
    }
  }

  @Override
  public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
    long t0 = System.nanoTime();
    try {
      return delegate.acquire(nodeId, max, ttl);
    } finally {
      leaseNanos.add(System.nanoTime() - t0);
    }
  }

  @Override
  public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl) {
    long t0 = System.nanoTime();
    try {
      return delegate.renew(nodeId, leases, ttl);
    } finally {
      leaseNanos.add(System.nanoTime() - t0);
    }
  }

  @Override
  public void release(String nodeId, Collection<PartitionLease> leases) {
    delegate.release(nodeId, leases);
  }

  @Override
  public void leave(String nodeId) {
    delegate.leave(nodeId);
  }
}
