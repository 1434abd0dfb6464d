package io.twinbox.testkit.cpu;

import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxConsumer;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.spi.StoreRules;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The consumer's CPU per message on the library's side, without broker or database: a broker's real
 * decoder over messages as its publisher encodes them, the payload hash, and the real {@link
 * InboxConsumer} (inbox, runner, settle) over a store and database that do nothing. Each stage runs
 * {@code messages} messages in one thread, once to warm up and then {@code repeats} times; it
 * reports the thread's CPU time per message (less disturbed by other load than wall time), the best
 * and every repeat. A broker module's test-scope {@code main} supplies the wire messages and the
 * decoder. Not a test: run by hand (BENCHMARKS.md, "consumer CPU per message").
 */
public final class ConsumerCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** A broker's decoder: a wire message and its delivery number (for its origin) to what a source returns. */
  @FunctionalInterface
  public interface Decoder<W> {
    ReceivedMessage decode(W wire, int delivery);
  }

  private ConsumerCpu() {}

  /**
   * {@code count} distinct outbox messages as a relay publishes them: an order event of about 200
   * bytes of JSON, aggregate, sequence, time, correlation id and one user header.
   */
  public static List<OutboxMessage> outboxMessages(int count) {
    List<OutboxMessage> out = new ArrayList<>(count);
    Instant at = Instant.parse("2026-12-02T10:15:30.123456Z");
    for (int i = 0; i < count; i++) {
      String payload = String.format(Locale.ROOT, "{\"orderId\":%d,\"customer\":\"customer-%d\",\"amount\":\"%d.%02d\","
          + "\"currency\":\"EUR\",\"items\":[{\"sku\":\"SKU-%05d\",\"qty\":%d},{\"sku\":\"SKU-%05d\",\"qty\":1}],"
          + "\"shipping\":{\"country\":\"DE\",\"zip\":\"%05d\"},\"channel\":\"web\"}", i, i % 10_000, 10 + i % 900,
          i % 100, i, 1 + i % 5, (i * 7) % 100_000, i % 100_000);
      out.add(new OutboxMessage(i + 1, new UUID(0x0190_0000_0000_7000L + i, 0x8000_0000_0000_0000L + i), "Order",
          "order-" + (i % 1000), 1 + i / 1000, 0, "OrderPlaced", 1, payload, Map.of("tenant", "acme"),
          "corr-" + i, null, null, at.plusMillis(i), at.plusMillis(i), 0, null));
    }
    return out;
  }

  /**
   * Measures and prints the stages for {@code broker}. System properties: {@code messages} per
   * repeat (default 300,000), {@code repeats} (default 5), {@code stages} (default {@code
   * decode,hash,consumer}).
   */
  public static <W> void run(String broker, List<W> wire, Decoder<W> decoder) throws InterruptedException {
    int messages = Integer.getInteger("messages", 300_000);
    int repeats = Integer.getInteger("repeats", 5);
    List<String> stages = List.of(System.getProperty("stages", "decode,hash,consumer").split(","));
    System.out.printf(Locale.ROOT, "%s: %,d messages per repeat (%,d distinct), 1 warm-up + %d repeats, thread CPU"
        + " ns per message%n", broker, messages, wire.size(), repeats);
    if (stages.contains("decode")) {
      report("decode", repeat(repeats, () -> decode(wire, decoder, messages)), messages);
    }
    if (stages.contains("hash")) {
      List<io.twinbox.InboxMessage> decoded = new ArrayList<>(wire.size());
      for (int i = 0; i < wire.size(); i++) {
        decoded.add(decoder.decode(wire.get(i), i).message());
      }
      report("hash", repeat(repeats, () -> hash(decoded, messages)), messages);
    }
    if (stages.contains("consumer")) {
      report("consumer", repeat(repeats, () -> consume(wire, decoder, messages)), messages);
    }
  }

  @FunctionalInterface
  private interface Stage {
    long cpuNanos() throws InterruptedException;
  }

  private static long[] repeat(int repeats, Stage stage) throws InterruptedException {
    stage.cpuNanos(); // warm-up
    long[] nanos = new long[repeats];
    for (int r = 0; r < repeats; r++) {
      nanos[r] = stage.cpuNanos();
    }
    return nanos;
  }

  private static void report(String stage, long[] nanos, int messages) {
    StringBuilder each = new StringBuilder();
    for (long n : nanos) {
      each.append(each.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", (double) n / messages));
    }
    System.out.printf(Locale.ROOT, "  %-9s best %6.0f ns/msg   (repeats: %s)%n", stage,
        (double) Arrays.stream(nanos).min().orElseThrow() / messages, each);
  }

  /** What a source does per delivery. */
  private static <W> long decode(List<W> wire, Decoder<W> decoder, int messages) {
    long sink = 0;
    long start = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < messages; i++) {
      sink += decoder.decode(wire.get(i % wire.size()), i).message().id().length();
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - start;
    return sink < 0 ? -1 : cpu;
  }

  /** The inbox's payload hash, once per message. */
  private static long hash(List<io.twinbox.InboxMessage> decoded, int messages) {
    long sink = 0;
    long start = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < messages; i++) {
      sink += StoreRules.payloadHash(decoded.get(i % decoded.size())).charAt(0);
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - start;
    return sink < 0 ? -1 : cpu;
  }

  /** The real consumer, decoding at each fetch, batches of 50, a batch handler that does nothing. */
  private static <W> long consume(List<W> wire, Decoder<W> decoder, int messages) throws InterruptedException {
    WireSource<W> source = new WireSource<>(wire, decoder, messages, 50);
    Inbox inbox = Inbox.builder(new NullInboxStore(), "cpu").build();
    InboxBatchHandler handler = (connection, batch) -> {};
    InboxConsumer consumer = InboxConsumer.builder(source).inbox(inbox, NullDatabase.dataSource()).handler(handler)
        .batchSize(50).build();
    consumer.start();
    try {
      return source.awaitCpuNanos();
    } finally {
      consumer.close();
    }
  }
}
