package io.twinbox.bench.peers.modulith;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.peers.AfterCommit;
import io.twinbox.bench.peers.PacedWriters;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.bench.peers.PeerConsumer;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The latency scenario's Spring Modulith contender: paced writers run Spring transactions
 * ({@code TransactionTemplate}: business insert with {@code JdbcTemplate} + {@code publishEvent}); on
 * commit Modulith's transactional listener hands the event to the {@code @ApplicationModuleListener}
 * externalizer on the task executor ({@code @Async}), which sends it with {@code KafkaTemplate} and
 * marks the publication completed on the ack. The commit time is taken in an after-commit
 * synchronization ordered first. A consumer notes when each event id arrives.
 */
public final class ModulithLatency {
  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private int topicNo;

  public ModulithLatency(PostgresDatabase db, KafkaBroker broker, String runId) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
  }

  public Result measure(Modulith.Setup setup, int rate, int writers, int warmupSeconds, int seconds, int aggregates,
      int partitions) throws Exception {
    Modulith.clear(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    String topic = "bench-peers-latency-" + runId + "-" + setup.name() + "-" + (++topicNo);
    Topics.createWarm(broker, topic, partitions);
    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> consumed = new ConcurrentHashMap<>(1 << 17);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();
    try (HikariDataSource pool = Pools.create(db, "modulith-latency", Math.min(14, writers + setup.threads() + 2), false);
        ConfigurableApplicationContext ctx = Modulith.start(setup, pool, broker.bootstrapServers());
        PeerConsumer consumer = new PeerConsumer(broker.bootstrapServers(), topic, partitions, consumed)) {
      TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
      // The application's DataSource (a wrapper of pool), so that the insert joins the transaction.
      JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(javax.sql.DataSource.class));
      consumer.start();
      PeerLatencyReport.Load l = new PeerLatencyReport.Load(rate, writers, warmupSeconds, seconds, aggregates, partitions);
      PacedWriters.Outcome run = PacedWriters.run("modulith-latency", l, broker.pid(), committed, measured, (no, commit) -> {
        UUID id = UUID.randomUUID();
        tx.executeWithoutResult(s -> {
          AfterCommit.run(() -> commit.committed(id));
          String customer = Payloads.customer();
          long cents = 100 + ThreadLocalRandom.current().nextLong(1_000_000);
          jdbc.update("INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)", customer,
              BigDecimal.valueOf(cents, 2), Timestamp.from(Instant.now()));
          ctx.publishEvent(new OrderPlaced(topic, Payloads.aggregateId(aggregates), id.toString(),
              Payloads.orderJson(no, customer, cents)));
        });
      });
      long[] toConsume = PeerLatencyReport.awaitConsumed(measured, committed, consumed);
      Result r = PeerLatencyReport.result(setup.name(), run.loadBefore(), run.loadAfter(), others,
          l,
          "Spring Modulith @ApplicationModuleListener externalizer on a " + setup.threads()
              + "-thread task executor after commit, completion mode " + setup.completionMode(),
          measured.size(), run.failures(), toConsume)
          .metric("incomplete_at_end", Modulith.pending(db.dataSource()));
      r.metrics(run.cpu());
      return r;
    }
  }
}
