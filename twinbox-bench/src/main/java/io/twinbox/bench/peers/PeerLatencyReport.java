package io.twinbox.bench.peers;

import io.twinbox.bench.LatencyStats;
import io.twinbox.bench.Result;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** The part of a peer's latency measurement that is the same for every peer: the drain and the report. */
public final class PeerLatencyReport {
  private PeerLatencyReport() {}

  /** The load a latency run applies. */
  public record Load(int rate, int writers, int warmupSeconds, int seconds, int aggregates, int partitions) {}

  /** Waits up to 20 s for the measured events to be consumed; their sorted commit→consume latencies (ns). */
  public static long[] awaitConsumed(Set<UUID> measured, Map<UUID, Long> committed, Map<UUID, Long> consumed)
      throws InterruptedException {
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!consumed.keySet().containsAll(measured) && System.nanoTime() < waitUntil) {
      TimeUnit.MILLISECONDS.sleep(50);
    }
    return LatencyStats.latencies(measured, committed, consumed);
  }

  /** The latency result every peer reports: settings, counts, percentiles and CDF of {@code toConsume}. */
  public static Result result(String variant, double load, double loadAfter, double others, Load l, String relay,
      int events, long failures, long[] toConsume) {
    Result r = new Result("latency", variant, load).loadAfter(loadAfter)
        .param("others_cpu_before", others)
        .param("rate", l.rate()).param("writers", l.writers()).param("seconds", l.seconds())
        .param("warmup_seconds", l.warmupSeconds()).param("aggregates", l.aggregates())
        .param("topic_partitions", l.partitions())
        .param("relay", relay);
    r.metric("events", events)
        .metric("achieved_rate", events / (double) l.seconds())
        .metric("write_failures", failures)
        .metric("not_consumed", events - toConsume.length);
    LatencyStats.percentiles(r, "consume", toConsume);
    r.metric("consume_cdf_ms", LatencyStats.cdf(toConsume));
    return r;
  }
}
