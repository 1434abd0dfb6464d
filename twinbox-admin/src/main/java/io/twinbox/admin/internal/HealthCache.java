package io.twinbox.admin.internal;

import io.twinbox.Health;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@code /health} verdict, computed at most once per {@code ttl} however many callers ask, and
 * by one caller at a time (single flight): callers that arrive while a check runs wait for that
 * check's verdict instead of starting their own. {@code /health} needs no token, so without this
 * anyone who reaches the port could run four counts per request against the database. Thread-safe.
 */
public final class HealthCache {
  private final Supplier<Health.Report> check;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private Health.Report last;
  private long checkedAt;
  private CompletableFuture<Health.Report> inFlight;

  public HealthCache(Supplier<Health.Report> check, Duration ttl) {
    this(check, ttl, System::nanoTime);
  }

  HealthCache(Supplier<Health.Report> check, Duration ttl, LongSupplier nanoTime) {
    this.check = check;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  /** The cached verdict while it is younger than the TTL, else a fresh one (shared with concurrent callers). */
  public Health.Report get() {
    CompletableFuture<Health.Report> pending;
    boolean mine = false;
    synchronized (this) {
      if (last != null && nanoTime.getAsLong() - checkedAt < ttlNanos) {
        return last;
      }
      if (inFlight == null) {
        inFlight = new CompletableFuture<>();
        mine = true;
      }
      pending = inFlight;
    }
    if (!mine) {
      return pending.join();
    }
    Health.Report report = null;
    try {
      report = check.get();
    } catch (RuntimeException e) {
      // Health.check() reports an unreadable store itself; this only guards against a broken one.
      report = new Health.Report(false, List.of("health check failed: " + e.getClass().getSimpleName()), null);
    } finally {
      if (report == null) { // an Error: the waiting callers fail too, and the next one tries again
        synchronized (this) {
          inFlight = null;
        }
        pending.completeExceptionally(new IllegalStateException("the health check failed"));
      }
    }
    synchronized (this) {
      last = report;
      checkedAt = nanoTime.getAsLong();
      inFlight = null;
    }
    pending.complete(report);
    return report;
  }
}
