package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.bench.peers.PeerConsumer;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The latency scenario's gruelbox contender: paced writers run gruelbox transactions (business
 * insert + {@code schedule(...).send(...)}); after each commit gruelbox hands the entry to its
 * submitter at once (its post-commit hook), whose executor locks, sends, waits for the ack and
 * deletes. The commit time is taken in a post-commit hook registered before gruelbox's own, so it
 * precedes the hand-off. A consumer notes when each event id arrives.
 */
public final class GruelboxLatency {
  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private int topicNo;

  public GruelboxLatency(PostgresDatabase db, KafkaBroker broker, String runId) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
  }

  public Result measure(Gruelbox.Setup setup, int rate, int writers, int warmupSeconds, int seconds, int aggregates,
      int partitions) throws Exception {
    Gruelbox.clear(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    String topic = "bench-peers-latency-" + runId + "-" + setup.name() + "-" + (++topicNo);
    Topics.createWarm(broker, topic, partitions);
    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> consumed = new ConcurrentHashMap<>(1 << 17);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();
    ThreadPoolExecutor executor = setup.executor();
    try (HikariDataSource pool = Pools.create(db, "gruelbox-latency", writers + executor.getMaximumPoolSize() + 2, false);
        KafkaSender sender = new KafkaSender(broker.bootstrapServers());
        PeerConsumer consumer = new PeerConsumer(broker.bootstrapServers(), topic, partitions, consumed)) {
      ThreadLocalContextTransactionManager tm = TransactionManager.fromDataSource(pool);
      TransactionOutbox outbox = Gruelbox.outbox(tm, sender, Submitter.withExecutor(executor), true);
      consumer.start();
      long start = System.nanoTime();
      long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
      long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
      long intervalNanos = TimeUnit.SECONDS.toNanos(1) * writers / rate;
      AtomicLong orderNo = new AtomicLong();
      AtomicLong failures = new AtomicLong();
      double load = Machine.load1();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        long offset = intervalNanos * w / writers;
        Thread t = new Thread(() -> {
          long next = start + offset;
          while (next - measureTo < 0 && System.nanoTime() - measureTo < 0) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            }
            UUID id = UUID.randomUUID();
            long no = orderNo.incrementAndGet();
            try {
              tm.inTransactionThrows(tx -> {
                tx.addPostCommitHook(() -> {
                  long t1 = System.nanoTime();
                  committed.put(id, t1);
                  if (t1 - measureFrom >= 0 && t1 - measureTo < 0) {
                    measured.add(id);
                  }
                });
                String customer = Payloads.customer();
                long cents = 100 + ThreadLocalRandom.current().nextLong(1_000_000);
                try (PreparedStatement ps = tx.connection().prepareStatement(
                    "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)")) {
                  ps.setString(1, customer);
                  ps.setBigDecimal(2, BigDecimal.valueOf(cents, 2));
                  ps.setTimestamp(3, Timestamp.from(Instant.now()));
                  ps.executeUpdate();
                }
                outbox.schedule(KafkaSender.class).send(topic, Payloads.aggregateId(aggregates), id.toString(),
                    Payloads.orderJson(no, customer, cents));
              });
            } catch (Exception e) {
              failures.incrementAndGet();
            }
            next += intervalNanos;
          }
        }, "gruelbox-latency-writer-" + w);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      TimeUnit.NANOSECONDS.sleep(Math.max(0, measureFrom - System.nanoTime()));
      CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
      for (Thread t : threads) {
        t.join();
      }
      Map<String, Double> cpuUse = cpu.stop();
      double loadAfter = Machine.load1();
      long[] toConsume = PeerLatencyReport.awaitConsumed(measured, committed, consumed);
      Result r = PeerLatencyReport.result(setup.name(), load, loadAfter, others,
          new PeerLatencyReport.Load(rate, writers, warmupSeconds, seconds, aggregates, partitions),
          "gruelbox post-commit submit into a " + executor.getMaximumPoolSize()
              + "-thread executor (queue 16384)",
          measured.size(), failures.get(), toConsume)
          .metric("executor_queue_at_end", executor.getQueue().size());
      r.metrics(cpuUse);
      return r;
    } finally {
      executor.shutdownNow();
      executor.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
