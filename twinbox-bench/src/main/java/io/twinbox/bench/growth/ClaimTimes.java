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
 * (the store's whole call: borrow a connection, {@code SET LOCAL}s, the claim query, commit), so
 * that the drain reports claim percentiles, not only a mean. Everything else is passed through.
 */
final class ClaimTimes implements OutboxStore {
  private final OutboxStore delegate;
  private long[] nanos = new long[1024];
  private int count;
  private long emptyClaims;

  ClaimTimes(OutboxStore delegate) {
    this.delegate = delegate;
  }

  /** Sorted durations (ns) of the claims that returned rows. */
  synchronized long[] sorted() {
    long[] out = Arrays.copyOf(nanos, count);
    Arrays.sort(out);
    return out;
  }

  synchronized long emptyClaims() {
    return emptyClaims;
  }

  private synchronized void record(long ns, boolean empty) {
    if (empty) {
      emptyClaims++;
      return;
    }
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = ns;
  }

  @Override
  public List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
    long t0 = System.nanoTime();
    List<ClaimedRow> rows = delegate.claim(nodeId, leases, limit);
    record(System.nanoTime() - t0, rows.isEmpty());
    return rows;
  }

  @Override
  public Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode) {
    return delegate.complete(nodeId, leases, published, failed, mode);
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
