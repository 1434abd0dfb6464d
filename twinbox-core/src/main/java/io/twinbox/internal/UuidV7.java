package io.twinbox.internal;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RFC 9562 version 7 UUIDs: 48 bits of Unix milliseconds, then random bits. Ids made by one JVM
 * are strictly increasing (a 12-bit counter in {@code rand_a} breaks ties within a millisecond),
 * which keeps the unique index on the id append-mostly.
 */
public final class UuidV7 {
  private static final SecureRandom RANDOM = new SecureRandom();
  /** Last (millis << 12 | counter) handed out. */
  private static final AtomicLong LAST = new AtomicLong();

  private UuidV7() {}

  public static UUID next() {
    long now = System.currentTimeMillis() << 12;
    long stamp = LAST.updateAndGet(prev -> Math.max(prev + 1, now));
    long msb = ((stamp >>> 12) << 16) | 0x7000L | (stamp & 0xFFFL);
    long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }
}
