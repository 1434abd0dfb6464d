package io.twinbox.bench.wal;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.RelayStats;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.relay.Prefill;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Twinbox contenders of the {@code wal} drain: a backlog of pending events, then one relay
 * started against it and timed from its start until it has published every event (its own
 * counter, read every 10 ms) — the WAL relay ({@code RelayMode.WAL}, a fresh slot created before the
 * backlog was written, so the events wait in the WAL as after an outage) and the polling relay (its
 * defaults: 2 workers). Both as shipped, batch 500, through {@link KafkaPublisher} to a fixed topic.
 * Around the drain the private cluster's CPU seconds and WAL bytes ({@link ClusterCost}).
 */
final class TwinboxBacklogDrain {
  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final ClusterCost cost;
  private final String runId;
  private final int aggregates;
  private final int partitions;
  private final long sampleMillis;
  private int no;

  /** @param sampleMillis WAL relay only: sample its threads' stacks this often ({@link WalSampler}); 0: off */
  TwinboxBacklogDrain(PostgresDatabase db, KafkaBroker broker, ClusterCost cost, String runId, int aggregates,
      int partitions, long sampleMillis) {
    this.db = db;
    this.broker = broker;
    this.cost = cost;
    this.runId = runId;
    this.aggregates = aggregates;
    this.partitions = partitions;
    this.sampleMillis = sampleMillis;
  }

  /**
   * The WAL relay ({@code batchSize} {@code batch}) on a backlog of {@code events}, {@code perTx} per
   * transaction, in the WAL since a fresh slot.
   */
  Result wal(String variant, int batch, int events, int perTx, Duration timeout) throws Exception {
    String slot = "twinbox_bench_drain_" + (++no);
    try (HikariDataSource pool = Pools.create(db, "bench-wal-relay", 4, true)) {
      JdbcStore store = JdbcStore.builder(pool).build();
      Prefill.clear(db.dataSource());
      store.prepareChangeFeed(slot); // publication + slot at the current end of the WAL
      try {
        long t0 = System.nanoTime();
        ClusterCost.Sample[] w = new ClusterCost.Sample[2];
        WalBacklog.write(db.dataSource(), events, aggregates, perTx, () -> w[0] = sample(), () -> w[1] = sample());
        double prefillSeconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("  %s: wrote %,d events (%d per tx) in %.1f s%n", variant, events, perTx, prefillSeconds);
        Map<String, Object> written = ClusterCost.between(w[0], w[1], events, "write_");
        Result r = drain(variant, store, pool, events, timeout,
            b -> b.mode(RelayMode.WAL).walSlot(slot).batchSize(batch));
        r.param("events_per_tx", perTx).param("batch", batch).metric("prefill_s", Math.round(prefillSeconds * 10) / 10.0);
        r.metrics(written);
        return r;
      } finally {
        store.dropWalSlot(slot);
      }
    }
  }

  /** The polling relay (2 workers, its default) on a backlog of {@code events} written in one statement. */
  Result polling(int events, int workers, Duration timeout) throws Exception {
    Prefill.clear(db.dataSource());
    Prefill.fill(db.dataSource(), events, aggregates);
    try (HikariDataSource pool = Pools.create(db, "bench-relay", workers + 3, true)) {
      JdbcStore store = JdbcStore.builder(pool).build();
      Result r = drain("twinbox-polling", store, pool, Prefill.count(db.dataSource()), timeout,
          b -> b.workers(workers).batchSize(500));
      r.param("workers", workers).param("batch", 500);
      return r;
    }
  }

  private interface Configure {
    Relay.Builder apply(Relay.Builder b);
  }

  private Result drain(String variant, JdbcStore store, HikariDataSource pool, long events, Duration timeout,
      Configure configure) throws Exception {
    String topic = "bench-wal-drain-" + runId + "-" + variant + "-" + (++no);
    Topics.createWarm(broker, topic, partitions);
    double others = Quiet.await(Set.of(broker.pid()));
    double load = Machine.load1();
    RelayStats stats;
    long firstPublishNanos = -1;
    long elapsed;
    Map<String, Object> used;
    Map<String, Double> cpuUse;
    try (KafkaPublisher kafka = KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(TopicRouter.fixed(topic))
        .build()) {
      CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
      ClusterCost.Sample before = cost.sample();
      long start = System.nanoTime();
      WalSampler sampler = null;
      try (Relay relay = configure.apply(Relay.builder(store, kafka)).build()) {
        relay.start();
        if (sampleMillis > 0 && variant.startsWith("twinbox-wal")) {
          sampler = new WalSampler(sampleMillis);
        }
        long deadline = start + timeout.toNanos();
        long lastPrint = start;
        while (relay.stats().published() < events && System.nanoTime() < deadline) {
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
        elapsed = System.nanoTime() - start;
        stats = relay.stats();
        used = ClusterCost.between(before, cost.sample(), stats.published(), "drain_");
        cpuUse = cpu.stop();
        if (sampler != null) {
          sampler.close();
          used.put("stack_samples", sampler.summary());
          System.out.println("    WAL relay profile: " + sampler.summary());
        }
      }
    }
    long left = Prefill.count(db.dataSource());
    double seconds = elapsed / 1e9;
    Result r = new Result("relay", variant, load).loadAfter(Machine.load1())
        .param("description", "Relay.builder(JdbcStore, KafkaPublisher) defaults, batch 500, fixed topic, completion "
            + "DELETE" + (variant.startsWith("twinbox-wal") ? ", mode WAL (pgoutput slot)" : ", polling"))
        .param("others_cpu_before", others)
        .param("events", events).param("aggregates", aggregates).param("topic_partitions", partitions);
    r.metric("events_per_s", stats.published() / seconds)
        .metric("seconds", Math.round(seconds * 1000) / 1000.0)
        .metric("published", stats.published())
        .metric("first_publish_after_ms", firstPublishNanos / 1_000_000)
        .metric("left_in_outbox", left)
        .metric("outages", stats.outages())
        .metric("retried", stats.retried())
        .metric("fenced", stats.fenced())
        .metric("batches", stats.batches())
        .metric("records_in_topic", recordsIn(topic));
    r.metrics(used);
    r.metrics(cpuUse);
    System.out.printf("  %s: %,.0f events/s (%.2f s, first publish after %d ms, %d left); postgres %.1f ms CPU and "
            + "%,d WAL bytes per 1,000 events%n", variant, r.number("events_per_s"), seconds,
        firstPublishNanos / 1_000_000, left, r.number("drain_pg_cpu_ms_per_1000"), (long) r.number("drain_wal_bytes_per_1000"));
    return r;
  }

  private ClusterCost.Sample sample() {
    try {
      return cost.sample();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot sample the cluster's WAL position", e);
    }
  }

  private long recordsIn(String topic) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      return c.endOffsets(tps).values().stream().mapToLong(Long::longValue).sum()
          - (long) partitions * Topics.WARMUP_RECORDS_PER_PARTITION;
    }
  }
}
