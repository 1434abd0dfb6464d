package io.twinbox.jdbc.internal.wal;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * The outbox's {@code partition_no}, computed the way the schema's generated column does:
 * {@code hashtextextended(aggregate_type || '/' || coalesce(aggregate_id, id::text), 0) & 63}.
 * PostgreSQL (before 18) does not send generated columns through logical replication, so the
 * stream computes the value itself, to hand the transport exactly the message the polling claim
 * would. {@code hashtextextended} is Bob Jenkins' lookup3 hash over the text's bytes in the server
 * encoding (words read little-endian, whatever the CPU), with the 64-bit result {@code b << 32 | c};
 * the partition is the low 6 bits of {@code c}. PostgreSQL keeps it stable across releases because
 * hash partitioning depends on it. Checked against the server in {@code PartitionHashTest}.
 *
 * <p>Stateless and thread-safe.
 */
public final class PartitionHash {
  private PartitionHash() {}

  /** The partition of an event, for {@code partitions} a power of two (64 in the shipped schema). */
  public static int partition(String aggregateType, String aggregateIdOrMessageId, int partitions, Charset encoding) {
    byte[] key = (aggregateType + '/' + aggregateIdOrMessageId).getBytes(encoding);
    return (int) (hashExtended(key, 0) & (partitions - 1));
  }

  public static int partition(String aggregateType, String aggregateIdOrMessageId, int partitions) {
    return partition(aggregateType, aggregateIdOrMessageId, partitions, StandardCharsets.UTF_8);
  }

  /** PostgreSQL's {@code hash_bytes_extended(key, len, seed)} as a signed 64-bit value. */
  static long hashExtended(byte[] key, long seed) {
    int length = key.length;
    int a = 0x9e3779b9 + length + 3923095;
    int b = a;
    int c = a;
    if (seed != 0) {
      a += (int) (seed >>> 32);
      b += (int) seed;
      // mix
      a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
      a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
    }
    int i = 0;
    int left = length;
    while (left >= 12) {
      a += word(key, i);
      b += word(key, i + 4);
      c += word(key, i + 8);
      a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
      a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
      i += 12;
      left -= 12;
    }
    // The last 0–11 bytes, little-endian within each word; the lowest byte of c is left for the
    // length (already added at the start), so c takes the tail's bytes 8–10 from its second byte.
    if (left >= 11) c += (key[i + 10] & 0xff) << 24;
    if (left >= 10) c += (key[i + 9] & 0xff) << 16;
    if (left >= 9) c += (key[i + 8] & 0xff) << 8;
    if (left >= 8) b += (key[i + 7] & 0xff) << 24;
    if (left >= 7) b += (key[i + 6] & 0xff) << 16;
    if (left >= 6) b += (key[i + 5] & 0xff) << 8;
    if (left >= 5) b += key[i + 4] & 0xff;
    if (left >= 4) a += (key[i + 3] & 0xff) << 24;
    if (left >= 3) a += (key[i + 2] & 0xff) << 16;
    if (left >= 2) a += (key[i + 1] & 0xff) << 8;
    if (left >= 1) a += key[i] & 0xff;
    // final
    c ^= b; c -= Integer.rotateLeft(b, 14);
    a ^= c; a -= Integer.rotateLeft(c, 11);
    b ^= a; b -= Integer.rotateLeft(a, 25);
    c ^= b; c -= Integer.rotateLeft(b, 16);
    a ^= c; a -= Integer.rotateLeft(c, 4);
    b ^= a; b -= Integer.rotateLeft(a, 14);
    c ^= b; c -= Integer.rotateLeft(b, 24);
    return ((long) b << 32) | (c & 0xffffffffL);
  }

  private static int word(byte[] k, int i) {
    return (k[i] & 0xff) | (k[i + 1] & 0xff) << 8 | (k[i + 2] & 0xff) << 16 | (k[i + 3] & 0xff) << 24;
  }
}
