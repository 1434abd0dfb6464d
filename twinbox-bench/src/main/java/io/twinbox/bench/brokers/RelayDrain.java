package io.twinbox.bench.brokers;

import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.bench.relay.TimedTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Twinbox relay (defaults bar workers and batch size) on any store and transport until it
 * has published {@code events}, polling its own counter every 10 ms (no load on the database).
 */
public final class RelayDrain {
  private RelayDrain() {}

  /** Drains; the metrics include {@code events_per_s} from start to the last publish seen. */
  public static Map<String, Object> drain(OutboxStore store, Transport publisher, int workers, int batch, long events,
      Duration timeout) throws InterruptedException {
    TimedTransport transport = new TimedTransport(publisher, null);
    RelayStats stats;
    long start = System.nanoTime();
    long lastPrint = start;
    long stalledSince = start;
    long lastPublished = 0;
    try (Relay relay = Relay.builder(store, transport).workers(workers).batchSize(batch).build()) {
      relay.start();
      long deadline = start + timeout.toNanos();
      while (relay.stats().published() < events && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(10);
        long now = System.nanoTime();
        long published = relay.stats().published();
        if (published != lastPublished) {
          lastPublished = published;
          stalledSince = now;
        } else if (now - stalledSince > TimeUnit.SECONDS.toNanos(60)) {
          System.out.printf("    !! relay stalled: nothing published for 60 s at %,d of %,d%n", published, events);
          break;
        }
        if (now - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
          System.out.printf("    ... %,d published after %.1f s%n", published, (now - start) / 1e9);
          lastPrint = now;
        }
      }
      stats = relay.stats();
    } finally {
      transport.close();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("events_per_s", stats.published() / seconds);
    m.put("seconds", Math.round(seconds * 1000) / 1000.0);
    m.put("published", stats.published());
    m.put("complete", stats.published() >= events);
    m.put("outages", stats.outages());
    m.put("retried", stats.retried());
    m.put("fenced", stats.fenced());
    m.put("not_acked_sends", transport.notAcked());
    m.put("waves", transport.flushes());
    return m;
  }
}
