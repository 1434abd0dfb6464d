package io.twinbox.bench.brokers;

import static io.twinbox.bench.LatencyStats.latencies;
import static io.twinbox.bench.LatencyStats.q;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.relay.Prefill;
import io.twinbox.bench.relay.TimedTransport;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 4: the same relay and PostgreSQL database, one broker after the other (Kafka, RabbitMQ,
 * NATS JetStream) through the library's publishers with their defaults: events/s draining N
 * pre-filled pending events, and commit→broker-ack latency (p50/p99) at a steady moderate rate of
 * paced writers (business insert + {@code Outbox.write} per transaction, relay defaults).
 */
public final class BrokersBench {
  private final PostgresDatabase db;
  private final String runId;
  private final Set<Long> brokerPids;
  private int no;

  public BrokersBench(PostgresDatabase db, String runId, Set<Long> brokerPids) {
    this.db = db;
    this.runId = runId;
    this.brokerPids = brokerPids;
  }

  /** Drains {@code events} pre-filled pending events through {@code target}. */
  public Result throughput(BrokerTarget target, int events, int aggregates, int workers, int batch, Duration timeout)
      throws Exception {
    Prefill.clear(db.dataSource());
    Prefill.fill(db.dataSource(), events, aggregates);
    long pending = Prefill.count(db.dataSource());
    String tag = runId + "-t" + (++no);
    Transport publisher = target.open(tag);
    try {
      double others = io.twinbox.bench.Quiet.await(brokerPids);
      double load = Machine.load1();
      CpuMeter cpu = CpuMeter.start(brokerPids);
      Map<String, Object> m;
      try (HikariDataSource pool = Pools.create(db, "bench-relay", workers + 3, true)) {
        m = RelayDrain.drain(JdbcStore.builder(pool).build(), publisher, workers, batch, pending, timeout);
      }
      Map<String, Double> cpuUse = cpu.stop();
      Result r = new Result("brokers-throughput", target.name(), load).loadAfter(Machine.load1())
          .param("others_cpu_before", others).param("events", pending).param("aggregates", aggregates)
          .param("workers", workers).param("batch", batch)
          .param("description", "Relay.builder(JdbcStore on PostgreSQL, " + target.name()
              + " publisher with defaults).workers(" + workers + ").batchSize(" + batch + ")");
      m.forEach(r::metric);
      r.metric("left_in_outbox", Prefill.count(db.dataSource()));
      r.metrics(cpuUse);
      System.out.printf("  throughput %-15s %,8.0f events/s (%s s, published %s)%n", target.name(),
          r.number("events_per_s"), m.get("seconds"), m.get("published"));
      return r;
    } finally {
      target.cleanUp();
    }
  }

  /** Paced writers at {@code rate} events/s for {@code seconds}; commit→ack percentiles. */
  public Result latency(BrokerTarget target, int rate, int writers, int warmup, int seconds, int aggregates)
      throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS orders (id bigserial PRIMARY KEY, customer text NOT NULL, "
          + "amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL)");
      st.execute("TRUNCATE orders, twinbox_outbox");
      st.execute("CHECKPOINT");
    }
    String tag = runId + "-l" + (++no);
    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 16);
    Map<UUID, Long> acked = new ConcurrentHashMap<>(1 << 16);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();
    TimedTransport transport = new TimedTransport(target.open(tag), acked);
    try (HikariDataSource writerPool = Pools.create(db, "bench-writers", writers, false);
        HikariDataSource relayPool = Pools.create(db, "bench-relay", 5, true)) {
      double others = io.twinbox.bench.Quiet.await(brokerPids);
      JdbcStore jdbc = JdbcStore.builder(relayPool).build();
      Outbox outbox = Outbox.builder(jdbc).build();
      try (Relay relay = Relay.builder(jdbc, transport).build()) {
        relay.start();
        long leaseDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (relay.partitions().size() < jdbc.partitionCount() && System.nanoTime() < leaseDeadline) {
          TimeUnit.MILLISECONDS.sleep(20);
        }
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
        long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        long interval = TimeUnit.SECONDS.toNanos(1) * writers / rate;
        AtomicLong orderNo = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        double load = Machine.load1();
        for (int w = 0; w < writers; w++) {
          long offset = interval * w / writers;
          Thread t = new Thread(() -> {
            long next = start + offset;
            while (next - measureTo < 0 && System.nanoTime() - measureTo < 0) {
              long wait = next - System.nanoTime();
              if (wait > 0) {
                LockSupport.parkNanos(wait);
              }
              try {
                UUID id = writeOne(writerPool, outbox, orderNo.incrementAndGet(), aggregates);
                long t1 = System.nanoTime();
                committed.put(id, t1);
                if (t1 - measureFrom >= 0 && t1 - measureTo < 0) {
                  measured.add(id);
                }
              } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
              }
              next += interval;
            }
          }, "bench-writer-" + w);
          t.setDaemon(true);
          threads.add(t);
          t.start();
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, measureFrom - System.nanoTime()));
        CpuMeter cpu = CpuMeter.start(brokerPids);
        for (Thread t : threads) {
          t.join();
        }
        Map<String, Double> cpuUse = cpu.stop();
        double loadAfter = Machine.load1();
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!acked.keySet().containsAll(measured) && System.nanoTime() < waitUntil) {
          TimeUnit.MILLISECONDS.sleep(50);
        }
        long[] lat = latencies(measured, committed, acked);
        Result r = new Result("brokers-latency", target.name(), load).loadAfter(loadAfter)
            .param("others_cpu_before", others).param("rate", rate).param("writers", writers)
            .param("seconds", seconds).param("warmup_seconds", warmup).param("aggregates", aggregates)
            .param("relay", "Relay.builder defaults (2 workers, batch 500, LISTEN/NOTIFY wake-ups, poll 500 ms)");
        r.metric("events", measured.size()).metric("achieved_rate", measured.size() / (double) seconds)
            .metric("write_failures", failures.get()).metric("not_acked", measured.size() - lat.length);
        r.metric("ack_p50_ms", q(lat, 0.50)).metric("ack_p90_ms", q(lat, 0.90)).metric("ack_p99_ms", q(lat, 0.99))
            .metric("ack_max_ms", lat.length == 0 ? Double.NaN : lat[lat.length - 1] / 1e6);
        r.metrics(cpuUse);
        System.out.printf("  latency %-15s %,5.0f events/s: commit→ack p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
            target.name(), r.number("achieved_rate"), r.number("ack_p50_ms"), r.number("ack_p99_ms"),
            r.number("ack_max_ms"));
        return r;
      }
    } finally {
      transport.close();
      target.cleanUp();
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

      /** One row per broker: throughput (mean, per round) and latency (per round), ratios to Kafka. */
  public static List<List<String>> table(List<Result> all) {
    Map<String, List<Result>> tp = new LinkedHashMap<>();
    Map<String, List<Result>> lat = new LinkedHashMap<>();
    for (Result r : all) {
      if (r.scenario().equals("brokers-throughput")) {
        tp.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
      } else if (r.scenario().equals("brokers-latency")) {
        lat.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
      }
    }
    double kafka = mean(tp.getOrDefault("kafka", List.of()), "events_per_s");
    List<String> brokers = new ArrayList<>(tp.keySet());
    lat.keySet().stream().filter(b -> !brokers.contains(b)).forEach(brokers::add);
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("broker", "drain events/s (mean)", "per round", "vs kafka", "writers' rate", "ack p50 ms (mean)",
        "ack p99 ms (mean)", "ack p99 per round", "not acked", "cpu other", "load1"));
    for (String b : brokers) {
      List<Result> t = tp.getOrDefault(b, List.of());
      List<Result> l = lat.getOrDefault(b, List.of());
      double eps = mean(t, "events_per_s");
      List<Result> both = new ArrayList<>(t);
      both.addAll(l);
      rows.add(List.of(b, Report.num(eps), join(t, "events_per_s", false), Report.ratio(eps, kafka),
          Report.num(mean(l, "achieved_rate")), Report.ms(mean(l, "ack_p50_ms")), Report.ms(mean(l, "ack_p99_ms")),
          join(l, "ack_p99_ms", true), Report.num(sum(l, "not_acked")), Report.ms(mean(both, "cpu_other")),
          String.join(" / ", both.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList())));
    }
    return rows;
  }

  private static String join(List<Result> rs, String metric, boolean ms) {
    return String.join(" / ", rs.stream().map(r -> ms ? Report.ms(r.number(metric)) : Report.num(r.number(metric)))
        .toList());
  }

  static double mean(List<Result> rs, String metric) {
    return rs.stream().mapToDouble(r -> r.number(metric)).filter(x -> !Double.isNaN(x)).average().orElse(Double.NaN);
  }

  static double sum(List<Result> rs, String metric) {
    return rs.stream().mapToDouble(r -> r.number(metric)).filter(x -> !Double.isNaN(x)).sum();
  }
}
