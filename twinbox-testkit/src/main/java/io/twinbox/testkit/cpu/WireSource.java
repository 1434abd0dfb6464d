package io.twinbox.testkit.cpu;

import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntPredicate;

/**
 * A {@link MessageSource} over wire messages as a broker delivers them, decoded at each fetch by
 * the broker's real decoder, {@code batchSize} at a time. It reads the consumer thread's CPU time
 * at the first fetch and at the fetch after the last message (the last batch is committed by then),
 * so that {@link #cpuNanos} is the consumer's whole work for {@code messages}: decode, inbox,
 * runner, settle. Single use.
 */
final class WireSource<W> implements MessageSource {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final List<W> wire;
  private final ConsumerCpu.Decoder<W> decoder;
  private final int messages;
  private final int batchSize;
  private final CountDownLatch finished = new CountDownLatch(1);
  private int next;
  private long cpuStart = -1;
  private volatile long cpuNanos;

  /** {@code decoder} gets a wire message and its delivery number (for its origin or delivery tag). */
  WireSource(List<W> wire, ConsumerCpu.Decoder<W> decoder, int messages, int batchSize) {
    this.wire = wire;
    this.decoder = decoder;
    this.messages = messages;
    this.batchSize = batchSize;
  }

  @Override
  public String name() {
    return "wire";
  }

  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (cpuStart < 0) {
      cpuStart = THREADS.getCurrentThreadCpuTime();
    }
    if (next >= messages) {
      if (finished.getCount() > 0) {
        cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuStart;
        finished.countDown();
      }
      Thread.sleep(5);
      return List.of();
    }
    int n = Math.min(batchSize, messages - next);
    List<ReceivedMessage> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++, next++) {
      out.add(decoder.decode(wire.get(next % wire.size()), next));
    }
    return out;
  }

  /** Waits for the consumer to have committed every message; its thread's CPU time for them. */
  long awaitCpuNanos() throws InterruptedException {
    finished.await();
    return cpuNanos;
  }

  @Override
  public void settle(int from, int to, IntPredicate parked) {}

  @Override
  public void giveBack(int done) {}

  @Override
  public long sessions() {
    return 1;
  }

  @Override
  public void close() {}
}
