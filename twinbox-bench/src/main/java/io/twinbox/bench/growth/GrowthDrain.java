package io.twinbox.bench.growth;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import io.twinbox.bench.LatencyStats;
import io.twinbox.bench.Pools;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One measured drain: the Twinbox relay with its defaults (bar workers, batch and completion mode)
 * publishes the pending events to Kafka; done when its own counter reaches {@code events} (checked
 * every 10 ms) and the pending index is verified empty. Events/s = published / elapsed; claim
 * percentiles from {@link ClaimTimes}.
 */
final class GrowthDrain {
  private GrowthDrain() {}

  record Settings(int workers, int batch, Duration timeout) {}

  static Map<String, Object> run(PostgresDatabase db, KafkaBroker broker, String topic, long events,
      CompletionMode mode, Settings s) throws Exception {
    TableIo before = TableIo.snapshot(db.dataSource());
    ClaimTimes store;
    long published;
    long elapsed;
    try (HikariDataSource pool = Pools.create(db, "growth-relay", s.workers() + 3, true)) {
      store = new ClaimTimes(JdbcStore.builder(pool).build());
      KafkaPublisher transport = KafkaPublisher.builder(broker.bootstrapServers())
          .topicRouter(TopicRouter.fixed(topic)).build();
      long start = System.nanoTime();
      try (Relay relay = Relay.builder(store, transport).workers(s.workers()).batchSize(s.batch())
          .completionMode(mode).build()) {
        relay.start();
        long deadline = start + s.timeout().toNanos();
        long lastPrint = start;
        while (relay.stats().published() < events && System.nanoTime() < deadline) {
          TimeUnit.MILLISECONDS.sleep(10);
          long now = System.nanoTime();
          if (now - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
            System.out.printf("      ... %,d published after %.1f s%n", relay.stats().published(), (now - start) / 1e9);
            lastPrint = now;
          }
        }
        elapsed = System.nanoTime() - start;
        published = relay.stats().published();
      } finally {
        transport.close();
      }
    }
    long[] claims = store.sorted();
    long[] completions = store.sortedCompletions();
    Map<String, Object> m = new LinkedHashMap<>();
    double seconds = elapsed / 1e9;
    m.put("events_per_s", Math.round(Math.min(published, events) / seconds));
    m.put("seconds", Math.round(seconds * 1000) / 1000.0);
    m.put("published", published);
    m.put("left_pending", PendingEvents.pending(db.dataSource()));
    m.put("claims", claims.length);
    m.put("empty_claims", store.emptyClaims());
    m.put("claim_p50_ms", LatencyStats.q(claims, 0.50));
    m.put("claim_p90_ms", LatencyStats.q(claims, 0.90));
    m.put("claim_p99_ms", LatencyStats.q(claims, 0.99));
    m.put("claim_max_ms", claims.length == 0 ? Double.NaN : Math.round(claims[claims.length - 1] / 1e4) / 100.0);
    m.put("completions", completions.length);
    m.put("complete_p50_ms", LatencyStats.q(completions, 0.50));
    m.put("complete_p99_ms", LatencyStats.q(completions, 0.99));
    m.put("complete_us_per_row", Math.round(Arrays.stream(completions).sum() / 1e3
        / Math.max(1, store.completedRows()) * 10) / 10.0);
    m.put("claim_us_per_row", Math.round(Arrays.stream(claims).sum() / 1e3
        / Math.max(1, published) * 10) / 10.0);
    m.putAll(TableIo.snapshot(db.dataSource()).since(before, Math.min(published, events)));
    return m;
  }
}
