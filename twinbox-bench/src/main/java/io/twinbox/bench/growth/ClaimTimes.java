package io.twinbox.bench.growth;

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
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Decorates the relay's {@link OutboxStore} to keep the duration of every claim that returned rows
 * (the store's whole call: borrow a connection, {@code SET LOCAL}s, the claim query, commit) and of
 * every completion (the DELETE or the MARK update of a published batch, with its fence), so that the
 * drain reports percentiles of both, not only a mean. Everything else is passed through.
 */
final class ClaimTimes implements OutboxStore {
  private final OutboxStore delegate;
  private final Durations claims = new Durations();
  private final Durations completions = new Durations();
  private long emptyClaims;
  private long completedRows;

  ClaimTimes(OutboxStore delegate) {
    this.delegate = delegate;
  }

  /** Sorted durations (ns) of the claims that returned rows. */
  long[] sorted() {
    return claims.sorted();
  }

  /** Sorted durations (ns) of the completions. */
  long[] sortedCompletions() {
    return completions.sorted();
  }

  synchronized long emptyClaims() {
    return emptyClaims;
  }

  /** Rows handed to {@link #complete}, published and failed. */
  synchronized long completedRows() {
    return completedRows;
  }

  @Override
  public List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
    long t0 = System.nanoTime();
    List<ClaimedRow> rows = delegate.claim(nodeId, leases, limit);
    long ns = System.nanoTime() - t0;
    if (rows.isEmpty()) {
      synchronized (this) {
        emptyClaims++;
      }
    } else {
      claims.add(ns);
    }
    return rows;
  }

  @Override
  public Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode) {
    long t0 = System.nanoTime();
    Completion c = delegate.complete(nodeId, leases, published, failed, mode);
    completions.add(System.nanoTime() - t0);
    synchronized (this) {
      completedRows += published.size() + failed.size();
    }
    return c;
  }

  /** A growing array of durations; thread-safe. */
  private static final class Durations {
    private long[] nanos = new long[1024];
    private int count;

    synchronized void add(long ns) {
      if (count == nanos.length) {
        nanos = Arrays.copyOf(nanos, count * 2);
      }
      nanos[count++] = ns;
    }

    synchronized long[] sorted() {
      long[] out = Arrays.copyOf(nanos, count);
      Arrays.sort(out);
      return out;
    }
  }

  @Override
  public AutoCloseable onWrite(Runnable callback) {
    return delegate.onWrite(callback);
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
    return delegate.heartbeat(nodeId, ttl);
  }

  @Override
  public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
    return delegate.acquire(nodeId, max, ttl);
  }

  @Override
  public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl) {
    return delegate.renew(nodeId, leases, ttl);
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
