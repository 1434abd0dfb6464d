package io.twinbox.bench.peers.namastack;

import com.zaxxer.hikari.HikariDataSource;
import io.namastack.outbox.Outbox;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The relay scenario's namastack-outbox contender. {@code events} records are scheduled beforehand
 * with {@code Outbox.schedule(payload, aggregateId)}, 1,000 per transaction (four transactions at a time), by an application whose
 * poller does not run (as during a broker outage), which is then shut down. A fresh application with
 * the setup's settings then drains them the only way namastack has: its poller loads up to
 * {@code batch-size} record keys with pending records every poll interval, hands each key to its
 * executor, which processes that key's records in order — per record the handler (send to Kafka, wait
 * for the ack) and one UPDATE marking it completed (or a DELETE) — and waits for the whole batch
 * before the next interval starts. Timed from the application's start (the poller starts with it)
 * until no record is incomplete.
 */
public final class NamastackRelay {
  private final PostgresDatabase db;
  private final KafkaBroker broker;

  public NamastackRelay(PostgresDatabase db, KafkaBroker broker) {
    this.db = db;
    this.broker = broker;
  }

  /** Schedules {@code events} records for the Kafka handler, 1,000 per transaction, four transactions at a time. */
  public void prefill(String topic, int events, int aggregates) throws Exception {
    Namastack.clear(db.dataSource());
    try (HikariDataSource pool = Pools.create(db, "namastack-prefill", 4, false);
        ConfigurableApplicationContext ctx = Namastack.start(Namastack.Setup.idle(), pool, broker.bootstrapServers())) {
      TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
      Outbox outbox = ctx.getBean(Outbox.class);
      // Four writers side by side: only the setting-up is faster, nothing of it is measured.
      ExecutorService writers = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> chunks = new ArrayList<>();
        for (int done = 0; done < events; done += 1000) {
          int from = done;
          int n = Math.min(1000, events - done);
          chunks.add(writers.submit(() -> tx.executeWithoutResult(s -> {
            for (int i = 0; i < n; i++) {
              long no = from + i;
              outbox.schedule(new OrderScheduled(topic, UUID.randomUUID().toString(),
                  Payloads.orderJson(no, Payloads.customer(), 100 + no)), "order-" + ThreadLocalRandom.current().nextInt(aggregates));
            }
          })));
        }
        for (Future<?> f : chunks) {
          f.get();
        }
      } finally {
        writers.shutdown();
      }
    }
    long stored = Namastack.pending(db.dataSource());
    if (stored != events) {
      throw new IllegalStateException("namastack stored " + stored + " records for " + events + " schedule calls");
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("VACUUM ANALYZE " + Namastack.TABLE);
    }
  }

  /** Drains the pending records with {@code setup}; one "relay" result. */
  public Result drain(Namastack.Setup setup, Duration timeout) throws Exception {
    long pending = Namastack.pending(db.dataSource());
    Namastack.resetInstances(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    double load = Machine.load1();
    long start;
    long elapsed;
    long startup;
    Map<String, Double> cpuUse;
    long left;
    try (HikariDataSource pool = Pools.create(db, "namastack-relay", Math.min(16, setup.effectiveThreads() + 6), false)) {
      CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
      start = System.nanoTime();
      long deadline = start + timeout.toNanos();
      try (ConfigurableApplicationContext ctx = Namastack.start(setup, pool, broker.bootstrapServers())) {
        startup = System.nanoTime() - start;
        System.out.println("    " + setup.name() + ": " + Namastack.effective(ctx));
        left = pending;
        while (System.nanoTime() - deadline < 0) {
          left = Namastack.pending(db.dataSource());
          if (left == 0) {
            break;
          }
          TimeUnit.MILLISECONDS.sleep(50);
        }
        elapsed = System.nanoTime() - start;
        cpuUse = cpu.stop();
      }
    }
    double seconds = elapsed / 1e9;
    Result r = new Result("relay", setup.name(), load).loadAfter(Machine.load1())
        .param("workers", setup.effectiveThreads())
        .param("description", "namastack-outbox poller (" + setup.describe()
            + "); per record: handler sends to Kafka and waits for the ack, then the record is marked completed")
        .param("others_cpu_before", others)
        .param("events", pending);
    r.metric("events_per_s", (pending - left) / seconds)
        .metric("seconds", Math.round(seconds * 1000) / 1000.0)
        .metric("left_in_outbox", left)
        .metric("startup_seconds", Math.round(startup / 1e6) / 1000.0);
    r.metrics(cpuUse);
    System.out.printf("  %s (%d threads): %,.0f events/s (%.2f s, %d left; application start %.1f s, counted)%n",
        setup.name(), setup.effectiveThreads(), (pending - left) / seconds, seconds, left, startup / 1e9);
    return r;
  }
}
