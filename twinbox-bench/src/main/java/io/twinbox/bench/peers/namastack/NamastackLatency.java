package io.twinbox.bench.peers.namastack;

import com.zaxxer.hikari.HikariDataSource;
import io.namastack.outbox.Outbox;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.peers.PeerConsumer;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The latency scenario's namastack-outbox contender: paced writers run Spring transactions
 * ({@code TransactionTemplate}: business insert with {@code JdbcTemplate} + {@code Outbox.schedule});
 * namastack has no hand-off at commit, so its poller finds the record on its next cycle and its
 * executor runs the handler (send to Kafka, wait for the ack) and marks the record completed. The
 * commit time is taken in an after-commit synchronization. A consumer notes when each event id
 * arrives.
 */
public final class NamastackLatency {
  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private int topicNo;

  public NamastackLatency(PostgresDatabase db, KafkaBroker broker, String runId) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
  }

  public Result measure(Namastack.Setup setup, int rate, int writers, int warmupSeconds, int seconds, int aggregates,
      int partitions) throws Exception {
    Namastack.clear(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    String topic = "bench-peers-latency-" + runId + "-" + setup.name() + "-" + (++topicNo);
    Topics.createWarm(broker, topic, partitions);
    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> consumed = new ConcurrentHashMap<>(1 << 17);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();
    try (HikariDataSource pool = Pools.create(db, "namastack-latency", Math.min(20, writers + setup.effectiveThreads() + 4), false);
        ConfigurableApplicationContext ctx = Namastack.start(setup, pool, broker.bootstrapServers());
        PeerConsumer consumer = new PeerConsumer(broker.bootstrapServers(), topic, partitions, consumed)) {
      System.out.println("    " + setup.name() + ": " + Namastack.effective(ctx));
      TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
      // The application's DataSource (a wrapper of pool), so that the insert joins the transaction.
      JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(javax.sql.DataSource.class));
      Outbox outbox = ctx.getBean(Outbox.class);
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
              tx.executeWithoutResult(s -> {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                  @Override
                  public int getOrder() {
                    return Ordered.HIGHEST_PRECEDENCE;
                  }

                  @Override
                  public void afterCommit() {
                    long t1 = System.nanoTime();
                    committed.put(id, t1);
                    if (t1 - measureFrom >= 0 && t1 - measureTo < 0) {
                      measured.add(id);
                    }
                  }
                });
                String customer = Payloads.customer();
                long cents = 100 + ThreadLocalRandom.current().nextLong(1_000_000);
                jdbc.update("INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)", customer,
                    BigDecimal.valueOf(cents, 2), Timestamp.from(Instant.now()));
                outbox.schedule(new OrderScheduled(topic, id.toString(), Payloads.orderJson(no, customer, cents)),
                    Payloads.aggregateId(aggregates));
              });
            } catch (RuntimeException e) {
              failures.incrementAndGet();
            }
            next += intervalNanos;
          }
        }, "namastack-latency-writer-" + w);
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
          "namastack-outbox poller (" + setup.describe() + "); handler sends to Kafka and waits for the ack",
          measured.size(), failures.get(), toConsume)
          .metric("incomplete_at_end", Namastack.pending(db.dataSource()));
      r.metrics(cpuUse);
      return r;
    }
  }
}
