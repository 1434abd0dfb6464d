package io.twinbox.bench.relay;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.bench.Pools;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Twinbox relay with default settings (bar {@code workers} and {@code batch}) publishing to
 * Kafka through {@link KafkaPublisher}; the store and the transport are wrapped in
 * {@link TimedStore} / {@link TimedTransport} to break a round down into claim, publish and
 * complete. Done when the relay has published every pre-filled event (its own counter, checked
 * every 10 ms, so that the check does not load the database) and the outbox is verified empty.
 */
public final class TwinboxDrainer implements Drainer {
  private final int workers;
  private final int batch;
  private final long sampleMillis;
  private final Tuning tuning;

  /**
   * A configuration variant, through public settings only (no code change): the default, the
   * relay's connections with {@code SET jit = off} (what the claim query loses to PostgreSQL's JIT
   * compiler), or the publisher with {@code linger.ms=0} (what each wave loses to the producer's
   * linger, since {@code KafkaPublisher.flush()} does not flush).
   */
  public enum Tuning {
    DEFAULT("twinbox", null, Map.of()),
    JIT_OFF("twinbox-jit-off", "SET jit = off", Map.of()),
    LINGER_0("twinbox-linger-0", null, Map.of("linger.ms", 0)),
    JIT_OFF_LINGER_0("twinbox-jit-off-linger-0", "SET jit = off", Map.of("linger.ms", 0));

    final String variant;
    final String initSql;
    final Map<String, Object> producer;

    Tuning(String variant, String initSql, Map<String, Object> producer) {
      this.variant = variant;
      this.initSql = initSql;
      this.producer = producer;
    }
  }

  public TwinboxDrainer(int workers, int batch, long sampleMillis, Tuning tuning) {
    this.workers = workers;
    this.batch = batch;
    this.sampleMillis = sampleMillis;
    this.tuning = tuning;
  }

  @Override
  public String name() {
    return tuning.variant;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workers", workers);
    m.put("batch", batch);
    m.put("description", "Relay.builder(JdbcStore, KafkaPublisher) defaults, fixed topic, completion DELETE"
        + (tuning.initSql != null ? "; relay connections run `" + tuning.initSql + "`" : "")
        + (tuning.producer.isEmpty() ? "" : "; producer " + tuning.producer));
    return m;
  }

  @Override
  public Map<String, Object> drain(Context ctx) throws Exception {
    // Each worker takes one connection per claim/complete; the lease keeper and LISTEN one each.
    try (HikariDataSource pool = Pools.create(ctx.db(), "bench-relay", workers + 3, true,
        tuning.initSql)) {
      TimedStore store = new TimedStore(JdbcStore.builder(pool).build(), true);
      KafkaPublisher.Builder publisher = KafkaPublisher.builder(ctx.broker().bootstrapServers())
          .topicRouter(TopicRouter.fixed(ctx.topic()));
      tuning.producer.forEach(publisher::property);
      TimedTransport transport = new TimedTransport(publisher.build(), null);
      StackSampler sampler = null;
      RelayStats stats;
      long firstPublishNanos = -1;
      long start = System.nanoTime();
      try (Relay relay = Relay.builder(store, transport).workers(workers).batchSize(batch).build()) {
        relay.start();
        if (sampleMillis > 0) {
          sampler = new StackSampler(sampleMillis);
        }
        long deadline = start + ctx.timeout().toNanos();
        long lastPrint = start;
        while (relay.stats().published() < ctx.events() && System.nanoTime() < deadline) {
          TimeUnit.MILLISECONDS.sleep(10);
          long now = System.nanoTime();
          if (firstPublishNanos < 0 && relay.stats().published() > 0) {
            firstPublishNanos = now - start;
          }
          if (now - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
            System.out.printf("    ... %,d published after %.1f s%n", relay.stats().published(), (now - start) / 1e9);
            lastPrint = now;
          }
        }
        stats = relay.stats();
        if (sampler != null) {
          sampler.close();
        }
      } finally {
        transport.close();
      }
      long elapsed = System.nanoTime() - start;
      TimedStore.Profile p = store.profile();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("rows", stats.published());
      m.put("outages", stats.outages());
      m.put("retried", stats.retried());
      m.put("fenced", stats.fenced());
      m.put("first_publish_after_ms", firstPublishNanos / 1_000_000);
      long rounds = Math.max(1, p.completes());
      m.put("batches", p.completes());
      m.put("avg_batch", SqlDrainers.round(p.claimedRows() / (double) rounds));
      m.put("empty_claims", p.emptyClaims());
      m.put("waves_per_batch", SqlDrainers.round(transport.flushes() / (double) rounds));
      m.put("claim_ms_per_batch", SqlDrainers.round(p.claimNanos() / 1e6 / Math.max(1, p.claims() - p.emptyClaims())));
      m.put("publish_ms_per_batch", SqlDrainers.round(p.publishNanos() / 1e6 / rounds));
      m.put("send_call_ms_per_batch", SqlDrainers.round(transport.sendNanos() / 1e6 / rounds));
      m.put("complete_ms_per_batch", SqlDrainers.round(p.completeNanos() / 1e6 / rounds));
      double workerSeconds = workers * elapsed / 1e9;
      m.put("share_claim", share(p.claimNanos(), workerSeconds));
      m.put("share_publish", share(p.publishNanos(), workerSeconds));
      m.put("share_complete", share(p.completeNanos(), workerSeconds));
      m.put("lease_ms_total", Math.round(p.leaseNanos() / 1e6));
      if (sampler != null) {
        m.put("stack_samples", sampler.summary());
      }
      return m;
    }
  }

  private static double share(long nanos, double workerSeconds) {
    return Math.round(1000.0 * nanos / 1e9 / workerSeconds) / 10.0;
  }
}
