package io.twinbox.bench.latency;

import static io.twinbox.bench.LatencyStats.cdf;
import static io.twinbox.bench.LatencyStats.latencies;
import static io.twinbox.bench.LatencyStats.percentiles;
import static io.twinbox.bench.LatencyStats.q;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.RelaySettings;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.relay.TimedStore;
import io.twinbox.bench.relay.TimedTransport;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Commit-to-ack and commit-to-consume latency at a steady rate: paced writer threads (one event per
 * transaction, with a business insert), a running Twinbox relay, and a Kafka consumer, all in this
 * JVM so that one monotonic clock ({@link System#nanoTime()}) times everything. The commit time is
 * taken right after {@code commit()} returns; the ack time when the producer's callback completes
 * the send; the consume time when {@code poll} hands the record over.
 */
public final class LatencyBench {

  /** Settings of one measurement. */
  public record Settings(int rate, int writers, int warmupSeconds, int seconds, int aggregates, int partitions) {}

  /**
   * How the relay learns about new events.
   *
   * @param notifyTrigger whether the outbox's NOTIFY trigger is enabled (writers pay for it)
   * @param listen whether the relay gets the store's LISTEN wake-ups
   * @param pollInterval the relay's poll interval (its fallback, or its only way with no wake-ups)
   * @param mode {@link RelayMode#POLLING}, or {@link RelayMode#WAL}: the relay streams from a fresh
   *     replication slot (needs a {@code wal_level=logical} server; the slot is dropped afterwards)
   * @param walSweepInterval WAL mode: the relay's {@code walSweepInterval}
   */
  public record Variant(String name, boolean notifyTrigger, boolean listen, Duration pollInterval, RelayMode mode,
      Duration walSweepInterval) {
    public Variant(String name, boolean notifyTrigger, boolean listen, Duration pollInterval) {
      this(name, notifyTrigger, listen, pollInterval, RelayMode.POLLING, RelaySettings.WAL_SWEEP_INTERVAL.defaultValue());
    }

    /** The WAL relay with its defaults (no NOTIFY trigger: it reads the log). */
    public static Variant wal(String name) {
      return wal(name, RelaySettings.WAL_SWEEP_INTERVAL.defaultValue());
    }

    /** The WAL relay with its defaults but {@code walSweepInterval}. */
    public static Variant wal(String name, Duration walSweepInterval) {
      return new Variant(name, false, false, RelaySettings.POLL_INTERVAL.defaultValue(), RelayMode.WAL,
          walSweepInterval);
    }

    public static Variant of(String name, long fastPollMillis) {
      return switch (name) {
        case "notify" -> new Variant(name, true, true, Duration.ofMillis(100));
        case "no-notify" -> new Variant(name, false, false, Duration.ofMillis(100));
        case "no-notify-fast" -> new Variant("no-notify-" + fastPollMillis + "ms", false, false,
            Duration.ofMillis(fastPollMillis));
        default -> throw new IllegalArgumentException(
            "unknown latency variant " + name + "; known: notify, no-notify, no-notify-fast");
      };
    }
  }

  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private int topicNo;
  private int slotNo;

  public LatencyBench(PostgresDatabase db, KafkaBroker broker, String runId) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
  }

  /** Measures one variant; the NOTIFY trigger is disabled again afterwards (the default since V3). */
  public Result measure(Variant v, Settings s) throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      io.twinbox.bench.write.WritePaths.setNotifyTrigger(c, v.notifyTrigger());
    }
    try {
      return run(v, s);
    } finally {
      try (Connection c = db.dataSource().getConnection()) {
        io.twinbox.bench.write.WritePaths.setNotifyTrigger(c, false);
      }
    }
  }

  private Result run(Variant v, Settings s) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS orders (id bigserial PRIMARY KEY, customer text NOT NULL, "
          + "amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL)");
      st.execute("TRUNCATE orders, twinbox_outbox");
      st.execute("CHECKPOINT");
    }
    double others = io.twinbox.bench.Quiet.await(Set.of(broker.pid()));
    String topic = "bench-latency-" + runId + "-" + (++topicNo);
    io.twinbox.bench.Topics.createWarm(broker, topic, s.partitions());

    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> acked = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> consumed = new ConcurrentHashMap<>(1 << 17);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();

    try (HikariDataSource writerPool = Pools.create(db, "bench-writers", s.writers(), false);
        HikariDataSource relayPool = Pools.create(db, "bench-relay", 5, true);
        Consumer consumer = new Consumer(broker.bootstrapServers(), topic, s.partitions(), consumed)) {
      JdbcStore jdbc = JdbcStore.builder(relayPool).build();
      TimedStore store = new TimedStore(jdbc, v.listen());
      TimedTransport transport = new TimedTransport(KafkaPublisher.builder(broker.bootstrapServers())
          .topicRouter(TopicRouter.fixed(topic)).build(), acked);
      Outbox outbox = Outbox.builder(jdbc).build();
      boolean wal = v.mode() == RelayMode.WAL;
      // The WAL relay needs the store's change feed, which the timing wrapper does not pass on: it
      // runs on the plain store (its claim/publish/complete profile stays empty).
      String slot = "twinbox_bench_latency_" + (++slotNo);
      Relay relay = wal
          ? Relay.builder(jdbc, transport).mode(RelayMode.WAL).walSlot(slot).walSweepInterval(v.walSweepInterval())
              .build()
          : Relay.builder(store, transport).pollInterval(v.pollInterval()).build();
      try {
        relay.start();
        consumer.start();
        // Let the relay take its leases before the clock starts.
        long leaseDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (relay.partitions().size() < jdbc.partitionCount() && System.nanoTime() < leaseDeadline) {
          TimeUnit.MILLISECONDS.sleep(20);
        }
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(s.warmupSeconds());
        long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(s.seconds());
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) * s.writers() / s.rate();
        AtomicLong orderNo = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong lateNanos = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        double load = Machine.load1();
        for (int w = 0; w < s.writers(); w++) {
          long offset = intervalNanos * w / s.writers();
          Thread t = new Thread(() -> {
            long next = start + offset;
            // Stop at the end of the window even when behind schedule: a writer that cannot keep
            // the rate sends as fast as it can (the achieved rate is reported), it does not catch up.
            while (next - measureTo < 0 && System.nanoTime() - measureTo < 0) {
              long wait = next - System.nanoTime();
              if (wait > 0) {
                LockSupport.parkNanos(wait);
              } else {
                lateNanos.accumulateAndGet(-wait, Math::max);
              }
              try {
                UUID id = writeOne(writerPool, outbox, orderNo.incrementAndGet(), s.aggregates());
                long t1 = System.nanoTime();
                committed.put(id, t1);
                if (t1 - measureFrom >= 0 && t1 - measureTo < 0) {
                  measured.add(id);
                }
              } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
              }
              next += intervalNanos;
            }
          }, "bench-latency-writer-" + w);
          t.setDaemon(true);
          writers.add(t);
          t.start();
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, measureFrom - System.nanoTime()));
        CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
        TimedStore.Profile before = store.profile();
        for (Thread t : writers) {
          t.join();
        }
        Map<String, Double> cpuUse = cpu.stop();
        TimedStore.Profile during = store.profile().minus(before);
        double loadAfter = Machine.load1();
        // Wait for the stragglers of the measured window.
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!consumed.keySet().containsAll(measured) && System.nanoTime() < waitUntil) {
          TimeUnit.MILLISECONDS.sleep(50);
        }

        long[] toAck = latencies(measured, committed, acked);
        long[] toConsume = latencies(measured, committed, consumed);
        Result r = new Result("latency", v.name(), load).loadAfter(loadAfter)
            .param("others_cpu_before", others)
            .param("rate", s.rate()).param("writers", s.writers()).param("seconds", s.seconds())
            .param("warmup_seconds", s.warmupSeconds()).param("aggregates", s.aggregates())
            .param("topic_partitions", s.partitions()).param("notify_trigger", v.notifyTrigger())
            .param("listen", v.listen())
            .param("poll_interval_ms", v.pollInterval().toMillis())
            .param("mode", v.mode().name())
            .param("wal_sweep_interval_ms", v.walSweepInterval().toMillis())
            .param("relay", wal ? "Relay.builder defaults, mode WAL (pgoutput slot), batch 500"
                : "Relay.builder defaults: workers 2, batch 500; poll " + v.pollInterval().toMillis() + " ms");
        r.metric("events", measured.size())
            .metric("achieved_rate", measured.size() / (double) s.seconds())
            .metric("write_failures", failures.get())
            .metric("max_writer_lag_ms", lateNanos.get() / 1e6)
            .metric("not_consumed", measured.size() - toConsume.length)
            .metric("not_acked", measured.size() - toAck.length)
            .metric("wakeups", during.wakeUps())
            .metric("claims", during.claims())
            .metric("empty_claims", during.emptyClaims())
            .metric("avg_batch", during.completes() == 0 ? 0 : Math.round(10.0 * during.claimedRows() / during.completes()) / 10.0)
            .metric("claim_ms_avg", during.claims() == 0 ? 0 : Math.round(100.0 * during.claimNanos() / 1e6 / during.claims()) / 100.0)
            .metric("publish_ms_avg", during.completes() == 0 ? 0 : Math.round(100.0 * during.publishNanos() / 1e6 / during.completes()) / 100.0)
            .metric("complete_ms_avg", during.completes() == 0 ? 0 : Math.round(100.0 * during.completeNanos() / 1e6 / during.completes()) / 100.0);
        percentiles(r, "ack", toAck);
        percentiles(r, "consume", toConsume);
        r.metric("ack_cdf_ms", cdf(toAck));
        r.metric("consume_cdf_ms", cdf(toConsume));
        r.metrics(cpuUse);
        return r;
      } finally {
        relay.close();
        transport.close();
        if (wal) {
          jdbc.dropWalSlot(slot);
        }
      }
    }
  }

  private static UUID writeOne(HikariDataSource pool, Outbox outbox, long no, int aggregates) throws SQLException {
    String customer = Payloads.customer();
    long cents = 100 + ThreadLocalRandom.current().nextLong(1_000_000);
    try (Connection c = pool.getConnection()) {
      try {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)")) {
          ps.setString(1, customer);
          ps.setBigDecimal(2, BigDecimal.valueOf(cents, 2));
          ps.setTimestamp(3, Timestamp.from(Instant.now()));
          ps.executeUpdate();
        }
        UUID id = outbox.write(c, OutboxEvent.builder("OrderCreated", 1)
            .aggregate("Order", Payloads.aggregateId(aggregates))
            .payload(Payloads.orderJson(no, customer, cents)).build());
        c.commit();
        return id;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
      /** 201 points of the distribution (quantiles 0, 0.5%, ... 100%) for the CDF plot, in ms. */
    /** The issue-2 table. */
  public static List<List<String>> table(List<Result> all) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("variant", "events/s", "events", "ack p50", "ack p99", "consume p50", "consume p90",
        "consume p99", "consume max", "lost", "cpu other", "load1"));
    for (Result r : all) {
      if (!r.scenario().equals("latency")) {
        continue;
      }
      rows.add(List.of(r.variant(), Report.num(r.number("achieved_rate")), Report.num(r.number("events")),
          Report.ms(r.number("ack_p50_ms")), Report.ms(r.number("ack_p99_ms")),
          Report.ms(r.number("consume_p50_ms")), Report.ms(r.number("consume_p90_ms")),
          Report.ms(r.number("consume_p99_ms")), Report.ms(r.number("consume_max_ms")),
          Report.num(r.number("not_consumed")), Report.ms(r.number("cpu_other")), Report.load(r.loadBeforeOrAfter())));
    }
    return rows;
  }

  /** Consumes the topic from its end, noting when each message id arrives. */
  private static final class Consumer implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<UUID, Long> consumed;
    private final Thread thread;
    private volatile boolean running = true;

    Consumer(String bootstrap, String topic, int partitions, Map<UUID, Long> consumed) {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
      p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
      this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      this.consumed = consumed;
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(topic, i));
      }
      consumer.assign(tps);
      consumer.seekToEnd(tps);
      tps.forEach(consumer::position); // resolve the end offsets now, before any event is written
      this.thread = new Thread(this::loop, "bench-consumer");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void loop() {
      while (running) {
        var records = consumer.poll(Duration.ofMillis(50));
        long now = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> rec : records) {
          Header h = rec.headers().lastHeader("ce_id");
          if (h != null) {
            consumed.putIfAbsent(UUID.fromString(new String(h.value(), StandardCharsets.UTF_8)), now);
          }
        }
      }
      consumer.close();
    }

    @Override
    public void close() {
      running = false;
      if (thread.isAlive()) {
        try {
          thread.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      } else {
        consumer.close();
      }
    }
  }
}
