package io.twinbox.bench.peers.debezium;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.LatencyStats;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.bench.peers.PeerConsumer;
import io.twinbox.bench.peers.PacedWriters;
import io.twinbox.bench.peers.PeerLatencyReport;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The latency scenario's Debezium contender: a running engine (streaming from a fresh slot, checked
 * with a probe event before the clock starts), paced writers that each commit one business insert +
 * one outbox event (inserted and deleted in the same transaction, as Debezium recommends), and the
 * same consumer as the other peers. Commit time: right after {@code commit()} returns; ack time:
 * when the sink sees the producer's ack; consume time: when {@code poll} hands the record over.
 */
public final class DebeziumLatency {
  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private int topicNo;

  public DebeziumLatency(PostgresDatabase db, KafkaBroker broker, String runId) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
  }

  public Result measure(Debezium.Setup setup, PeerLatencyReport.Load l) throws Exception {
    String slot = "bench_latency_" + (++topicNo);
    String topic = "bench-debezium-latency-" + runId + "-" + setup.name() + "-" + topicNo;
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE orders, " + Debezium.TABLE);
      st.execute("CHECKPOINT");
    }
    Debezium.createSlot(db.dataSource(), slot);
    try {
      return run(setup, l, slot, topic);
    } finally {
      Debezium.dropSlot(db.dataSource(), slot);
    }
  }

  private Result run(Debezium.Setup setup, PeerLatencyReport.Load l, String slot, String topic) throws Exception {
    Topics.createWarm(broker, topic, l.partitions());
    Map<UUID, Long> committed = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> acked = new ConcurrentHashMap<>(1 << 17);
    Map<UUID, Long> consumed = new ConcurrentHashMap<>(1 << 17);
    Set<UUID> measured = ConcurrentHashMap.newKeySet();
    try (HikariDataSource pool = Pools.create(db, "debezium-latency", l.writers(), false);
        OutboxEngine engine = OutboxEngine.start(db, setup, slot, topic, broker.bootstrapServers(), acked);
        PeerConsumer consumer = new PeerConsumer(broker.bootstrapServers(), topic, l.partitions(), consumed)) {
      // The engine streams once the probe is acknowledged.
      writeOne(pool, 0, l.aggregates());
      if (!engine.awaitAcked(1, Duration.ofSeconds(90))) {
        throw new IllegalStateException("the Debezium engine did not deliver a probe event within 90 s");
      }
      double others = Quiet.await(Set.of(broker.pid()));
      consumer.start();
      PacedWriters.Outcome run = PacedWriters.run("debezium-latency", l, broker.pid(), committed, measured, (no, commit) -> commit.committed(writeOne(pool, no, l.aggregates())));
      long[] toConsume = PeerLatencyReport.awaitConsumed(measured, committed, consumed);
      engine.check();
      long[] toAck = LatencyStats.latencies(measured, committed, acked);
      Result r = PeerLatencyReport.result(setup.name(), run.loadBefore(), run.loadAfter(), others, l,
          "Debezium 3.6.1.Final embedded engine, PostgreSQL connector (pgoutput), EventRouter SMT, KafkaProducer "
              + "acks=all + idempotence, markProcessed after each ack; poll.interval.ms " + setup.pollIntervalMillis()
              + ", max.batch.size " + setup.maxBatchSize(),
          measured.size(), run.failures(), toConsume)
          .param("poll_interval_ms", setup.pollIntervalMillis())
          .param("delete_in_tx", true);
      LatencyStats.percentiles(r, "ack", toAck);
      r.metric("ack_cdf_ms", LatencyStats.cdf(toAck));
      r.metric("not_acked", measured.size() - toAck.length);
      r.metrics(run.cpu());
      return r;
    }
  }

  private static UUID writeOne(HikariDataSource pool, long no, int aggregates) throws SQLException {
    String customer = Payloads.customer();
    long cents = 100 + ThreadLocalRandom.current().nextLong(1_000_000);
    UUID id = Payloads.uuidV7();
    try (Connection c = pool.getConnection()) {
      try {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)")) {
          ps.setString(1, customer);
          ps.setBigDecimal(2, BigDecimal.valueOf(cents, 2));
          ps.setTimestamp(3, Timestamp.from(Instant.now()));
          ps.executeUpdate();
        }
        DebeziumWritePath.writeEvent(c, id, Payloads.aggregateId(aggregates), Payloads.orderJson(no, customer, cents),
            true);
        c.commit();
        return id;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
