package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.zaxxer.hikari.HikariDataSource;
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
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The relay scenario's gruelbox contender: {@code events} entries are scheduled beforehand (with a
 * submitter that runs nothing, so they stay pending, as after a broker outage), made due, and then
 * drained by {@code TransactionOutbox.flush()} — gruelbox's documented background loop — into the
 * setup's executor, each entry being locked, sent (waiting for the broker's ack), and deleted in its
 * own transaction, as gruelbox does. The driver calls {@code flush()} again as soon as the
 * executor's queue has room for another full batch (4,096), which is faster than any schedule the
 * README suggests, so this is gruelbox's best case.
 */
public final class GruelboxRelay {
  private final PostgresDatabase db;
  private final KafkaBroker broker;

  public GruelboxRelay(PostgresDatabase db, KafkaBroker broker) {
    this.db = db;
    this.broker = broker;
  }

  /** Schedules {@code events} pending entries, 1,000 per transaction, and makes them due now. */
  public void prefill(String topic, int events, int aggregates) throws Exception {
    Gruelbox.clear(db.dataSource());
    try (HikariDataSource pool = Pools.create(db, "gruelbox-prefill", 2, false)) {
      TransactionManager tm = TransactionManager.fromDataSource(pool);
      TransactionOutbox outbox = Gruelbox.outbox(tm, new KafkaSender(), Gruelbox.none(), true);
      for (int done = 0; done < events; done += 1000) {
        int from = done;
        int n = Math.min(1000, events - done);
        tm.inTransactionThrows(tx -> {
          for (int i = 0; i < n; i++) {
            long no = from + i;
            outbox.schedule(KafkaSender.class).send(topic, "order-" + ThreadLocalRandom.current().nextInt(aggregates),
                UUID.randomUUID().toString(), Payloads.orderJson(no, Payloads.customer(), 100 + no));
          }
        });
      }
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("UPDATE " + Gruelbox.TABLE + " SET nextAttemptTime = now() - interval '1 second'");
      st.execute("VACUUM ANALYZE " + Gruelbox.TABLE);
    }
  }

  /** Drains the pending entries with {@code setup}; one "relay" result. */
  public Result drain(Gruelbox.Setup setup, String topic, Duration timeout) throws Exception {
    long pending = Gruelbox.pending(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    double load = Machine.load1();
    ThreadPoolExecutor executor = setup.executor();
    long flushes = 0;
    long start;
    long elapsed;
    Map<String, Double> cpuUse;
    long left;
    try (KafkaSender sender = new KafkaSender(broker.bootstrapServers());
        HikariDataSource pool = Pools.create(db, "gruelbox-relay", executor.getMaximumPoolSize() + 2, false)) {
      TransactionOutbox outbox = Gruelbox.outbox(TransactionManager.fromDataSource(pool), sender,
          Submitter.withExecutor(executor), true);
      CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
      start = System.nanoTime();
      long deadline = start + timeout.toNanos();
      long nextCount = 0;
      left = pending;
      while (System.nanoTime() - deadline < 0) {
        if (executor.getQueue().remainingCapacity() >= 4096) {
          outbox.flush();
          flushes++;
        } else {
          TimeUnit.MILLISECONDS.sleep(10);
        }
        if (System.nanoTime() - nextCount >= 0) {
          left = Gruelbox.pending(db.dataSource());
          if (left == 0) {
            break;
          }
          nextCount = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        }
      }
      elapsed = System.nanoTime() - start;
      cpuUse = cpu.stop();
      executor.shutdownNow();
      executor.awaitTermination(10, TimeUnit.SECONDS);
    }
    double seconds = elapsed / 1e9;
    Result r = new Result("relay", setup.name(), load).loadAfter(Machine.load1())
        .param("workers", executor.getMaximumPoolSize())
        .param("description", "gruelbox flush() into a " + executor.getMaximumPoolSize()
            + "-thread executor; per entry: lock, send + ack, delete, commit")
        .param("others_cpu_before", others)
        .param("events", pending);
    r.metric("events_per_s", (pending - left) / seconds)
        .metric("seconds", Math.round(seconds * 1000) / 1000.0)
        .metric("left_in_outbox", left)
        .metric("flushes", flushes);
    r.metrics(cpuUse);
    System.out.printf("  %s (%d threads): %,.0f events/s (%.2f s, %d left)%n", setup.name(),
        executor.getMaximumPoolSize(), (pending - left) / seconds, seconds, left);
    return r;
  }
}
