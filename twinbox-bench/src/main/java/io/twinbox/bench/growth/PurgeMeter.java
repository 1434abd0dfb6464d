package io.twinbox.bench.growth;

import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Decorates the store that {@link io.twinbox.Retention} purges through: counts the rows each
 * {@code purgePublished} batch deleted and how long it took, so that the purge's progress is known
 * at any moment without counting the table. {@link #stop()} makes the next batch return 0, which
 * ends {@code Retention.runOnce()} the way an exhausted backlog does (the purge timeout).
 */
final class PurgeMeter implements OutboxAdminStore {
  private final OutboxAdminStore delegate;
  private volatile boolean stopped;
  private long rows;
  private long[] batchNanos = new long[4096];
  private int batches;

  PurgeMeter(OutboxAdminStore delegate) {
    this.delegate = delegate;
  }

  void stop() {
    stopped = true;
  }

  synchronized long rows() {
    return rows;
  }

  synchronized int batches() {
    return batches;
  }

  /** Mean duration (ms) of the batches in [from, to) of all batches, as fractions: is the purge slowing down? */
  synchronized double meanBatchMs(double from, double to) {
    int a = (int) Math.floor(batches * from);
    int b = Math.max(a + 1, (int) Math.floor(batches * to));
    if (batches == 0 || a >= batches) {
      return Double.NaN;
    }
    return Math.round(Arrays.stream(batchNanos, a, Math.min(b, batches)).average().orElse(0) / 1e4) / 100.0;
  }

  @Override
  public int purgePublished(Duration age, int limit) {
    if (stopped) {
      return 0;
    }
    long t0 = System.nanoTime();
    int n = delegate.purgePublished(age, limit);
    long ns = System.nanoTime() - t0;
    synchronized (this) {
      rows += n;
      if (batches == batchNanos.length) {
        batchNanos = Arrays.copyOf(batchNanos, batches * 2);
      }
      batchNanos[batches++] = ns;
    }
    return n;
  }

  @Override
  public OutboxStatus status() {
    return delegate.status();
  }

  @Override
  public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
    return delegate.troubled(type, aggregateType, aggregateId, limit);
  }

  @Override
  public int retry(EventSelector selector) {
    return delegate.retry(selector);
  }

  @Override
  public int skip(EventSelector selector) {
    return delegate.skip(selector);
  }
}
