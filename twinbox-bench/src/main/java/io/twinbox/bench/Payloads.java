package io.twinbox.bench;

import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Test data shared by the scenarios: ~200-byte JSON payloads, aggregate ids, message ids. */
public final class Payloads {
  private Payloads() {}

  /** An order event's JSON, 190–210 bytes. */
  public static String orderJson(long orderNo, String customer, long cents) {
    return String.format(Locale.ROOT,
        "{\"orderId\":%d,\"customer\":\"%s\",\"amount\":\"%d.%02d\",\"currency\":\"EUR\","
            + "\"items\":[{\"sku\":\"SKU-%05d\",\"qty\":%d},{\"sku\":\"SKU-%05d\",\"qty\":1}],"
            + "\"shipping\":{\"country\":\"DE\",\"zip\":\"%05d\"},\"channel\":\"web\"}",
        orderNo, customer, cents / 100, cents % 100, orderNo % 100_000, 1 + orderNo % 5,
        (orderNo * 7) % 100_000, orderNo % 100_000);
  }

  /** A random aggregate id among {@code aggregates}. */
  public static String aggregateId(int aggregates) {
    return "order-" + ThreadLocalRandom.current().nextInt(aggregates);
  }

  public static String customer() {
    return "customer-" + ThreadLocalRandom.current().nextInt(10_000);
  }

  /**
   * A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. The raw-SQL writers use it
   * so that their unique-index inserts are as index-friendly as the library's UUIDv7 ids.
   */
  public static UUID uuidV7() {
    long millis = System.currentTimeMillis();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long msb = (millis << 16) | 0x7000L | (r.nextInt() & 0x0FFFL);
    long lsb = (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }
}
