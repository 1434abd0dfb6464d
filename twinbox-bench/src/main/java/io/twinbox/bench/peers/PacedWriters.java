package io.twinbox.bench.peers;

import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The writers of every peer's latency run: {@code writers} threads, staggered, together writing at a
 * steady {@code rate} for the warm-up and the measured window; the commit time of each event is
 * recorded, and the events committed inside the measured window are the ones measured. Only the
 * write itself differs between peers.
 */
public final class PacedWriters {
  private PacedWriters() {}

  /** Records that the event {@code id} committed: call it right after the commit, or in a post-commit hook. */
  @FunctionalInterface
  public interface Commit {
    void committed(UUID id);
  }

  /** One business transaction with its event; {@code no} numbers the orders from 1. */
  @FunctionalInterface
  public interface Write {
    void write(long no, Commit commit) throws Exception;
  }

  /** What the writers saw: failed writes, the machine's load before and after, CPU use in the window. */
  public record Outcome(long failures, double loadBefore, double loadAfter, Map<String, Double> cpu) {}

  /**
   * Runs the writers to the end of the measured window. {@code committed} receives every commit
   * time (ns), {@code measured} the ids committed inside the window; CPU is metered in the window,
   * excluding {@code brokerPid} from the others' share.
   */
  public static Outcome run(String name, PeerLatencyReport.Load load, long brokerPid, Map<UUID, Long> committed,
      Set<UUID> measured, Write write) throws InterruptedException {
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(load.warmupSeconds());
    long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(load.seconds());
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) * load.writers() / load.rate();
    Commit commit = id -> {
      long t1 = System.nanoTime();
      committed.put(id, t1);
      if (t1 - measureFrom >= 0 && t1 - measureTo < 0) {
        measured.add(id);
      }
    };
    AtomicLong orderNo = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    double before = Machine.load1();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < load.writers(); w++) {
      long offset = intervalNanos * w / load.writers();
      Thread t = new Thread(() -> {
        long next = start + offset;
        while (next - measureTo < 0 && System.nanoTime() - measureTo < 0) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          try {
            write.write(orderNo.incrementAndGet(), commit);
          } catch (Exception e) {
            failures.incrementAndGet();
          }
          next += intervalNanos;
        }
      }, name + "-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    TimeUnit.NANOSECONDS.sleep(Math.max(0, measureFrom - System.nanoTime()));
    CpuMeter cpu = CpuMeter.start(Set.of(brokerPid));
    for (Thread t : threads) {
      t.join();
    }
    Map<String, Double> cpuUse = cpu.stop();
    return new Outcome(failures.get(), before, Machine.load1(), cpuUse);
  }
}
