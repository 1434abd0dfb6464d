package io.twinbox.admin.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Limits failed authentications per client address with a token bucket: an address may fail
 * {@code burst} times in a row, then once per {@code burst}-th of {@code window}; while its bucket
 * is empty every {@code /api/} request from it is refused with 429 before its token is even looked
 * at, so guessing stays slow however fast the guesser. Successful requests cost nothing.
 *
 * <p>At most {@value #MAX_ADDRESSES} addresses are tracked; full buckets are dropped first, and
 * when every tracked address is still limited, new addresses share one overflow bucket (so a
 * guesser with many addresses is limited as one). Thread-safe.
 */
public final class AuthThrottle {
  static final int MAX_ADDRESSES = 10_000;
  private static final String OVERFLOW = "(overflow)";

  /** Whether a request may proceed; if not, how long until it may, and whether to audit this refusal. */
  public record Decision(boolean allowed, long retryAfterSeconds, boolean firstRefusal) {}

  private final int burst;
  private final long nanosPerToken;
  private final LongSupplier nanoTime;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  public AuthThrottle(int burst, Duration window) {
    this(burst, window, System::nanoTime);
  }

  AuthThrottle(int burst, Duration window, LongSupplier nanoTime) {
    this.burst = burst;
    this.nanosPerToken = Math.max(1, window.toNanos() / burst);
    this.nanoTime = nanoTime;
  }

  /** Checks an address before its credentials are looked at. */
  public Decision check(String remote) {
    String key = remote == null ? "" : remote;
    Bucket b = buckets.get(key);
    if (b == null && buckets.size() >= MAX_ADDRESSES) {
      b = buckets.get(OVERFLOW);
    }
    return b == null ? new Decision(true, 0, false) : b.check(nanoTime.getAsLong());
  }

  /** Counts a failed authentication from {@code remote}. */
  public void failed(String remote) {
    long now = nanoTime.getAsLong();
    String key = remote == null ? "" : remote;
    if (!buckets.containsKey(key) && buckets.size() >= MAX_ADDRESSES) {
      buckets.entrySet().removeIf(e -> !e.getKey().equals(OVERFLOW) && e.getValue().full(now));
      if (buckets.size() >= MAX_ADDRESSES) {
        key = OVERFLOW;
      }
    }
    buckets.computeIfAbsent(key, k -> new Bucket(burst, now)).take(now);
  }

  private final class Bucket {
    private double tokens;
    private long updatedAt;
    private boolean refusalAudited;

    Bucket(double tokens, long now) {
      this.tokens = tokens;
      this.updatedAt = now;
    }

    private void refill(long now) {
      tokens = Math.min(burst, tokens + (double) (now - updatedAt) / nanosPerToken);
      updatedAt = now;
    }

    synchronized Decision check(long now) {
      refill(now);
      if (tokens >= 1) {
        refusalAudited = false;
        return new Decision(true, 0, false);
      }
      long waitNanos = (long) Math.ceil((1 - tokens) * nanosPerToken);
      boolean first = !refusalAudited;
      refusalAudited = true;
      return new Decision(false, Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L), first);
    }

    synchronized void take(long now) {
      refill(now);
      tokens = Math.max(0, tokens - 1);
    }

    synchronized boolean full(long now) {
      refill(now);
      return tokens >= burst;
    }
  }
}
