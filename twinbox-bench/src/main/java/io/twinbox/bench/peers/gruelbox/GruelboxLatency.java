package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.peers.PacedWriters;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.bench.peers.PeerConsumer;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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
      PeerLatencyReport.Load l = new PeerLatencyReport.Load(rate, writers, warmupSeconds, seconds, aggregates, partitions);
      PacedWriters.Outcome run = PacedWriters.run("gruelbox-latency", l, broker.pid(), committed, measured, (no, commit) -> {
        UUID id = UUID.randomUUID();
        tm.inTransactionThrows(tx -> {
          tx.addPostCommitHook(() -> commit.committed(id));
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
      });
      long[] toConsume = PeerLatencyReport.awaitConsumed(measured, committed, consumed);
      Result r = PeerLatencyReport.result(setup.name(), run.loadBefore(), run.loadAfter(), others,
          l,
          "gruelbox post-commit submit into a " + executor.getMaximumPoolSize()
              + "-thread executor (queue 16384)",
          measured.size(), run.failures(), toConsume)
          .metric("executor_queue_at_end", executor.getQueue().size());
      r.metrics(run.cpu());
      return r;
    } finally {
      executor.shutdownNow();
      executor.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
