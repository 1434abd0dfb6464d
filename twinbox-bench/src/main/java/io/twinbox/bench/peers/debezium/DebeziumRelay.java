package io.twinbox.bench.peers.debezium;

import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.bench.Topics;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The relay scenario's Debezium contender: a backlog, as after an outage of the relay. A fresh slot
 * is created first, then {@code events} events are written while no engine runs (so they wait in
 * the WAL, as Twinbox's wait in its table), {@code eventsPerTx} per transaction, with or without the
 * delete in the same transaction; then the engine starts, and the clock runs from its start until
 * Kafka has acknowledged every event. Also reported: the engine's start-up (start to first ack) and
 * the streaming rate (first to last ack).
 */
public final class DebeziumRelay {
  private static final String PREFILL_PROCEDURE = """
      CREATE OR REPLACE PROCEDURE bench_debezium_prefill(n int, aggs int, per_tx int, del boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        i int := 0;
        ids uuid[];
      BEGIN
        WHILE i < n LOOP
          WITH ins AS (
            INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
            SELECT gen_random_uuid(), 'Order', 'order-' || floor(random() * aggs)::int, 'OrderCreated',
                   format('{"orderId":%s,"customer":"customer-%s","amount":"%s.%s","currency":"EUR","items":[{"sku":"SKU-%s","qty":%s},{"sku":"SKU-%s","qty":1}],"shipping":{"country":"DE","zip":"%s"},"channel":"web"}',
                          g, g % 10000, 10 + g % 990, lpad((g % 100)::text, 2, '0'), lpad((g % 100000)::text, 5, '0'),
                          1 + g % 5, lpad((g * 7 % 100000)::text, 5, '0'), lpad((g % 100000)::text, 5, '0'))::jsonb
              FROM generate_series(i + 1, least(i + per_tx, n)) AS g
            RETURNING id)
          SELECT array_agg(id) INTO ids FROM ins;
          IF del THEN
            DELETE FROM outbox WHERE id = ANY (ids);
          END IF;
          COMMIT;
          i := i + per_tx;
        END LOOP;
      END $$""";

  /**
   * Told when each phase of a measurement begins and ends ({@code prefill}: the backlog is written;
   * {@code drain}: from the engine's start until the last ack), so that a caller can meter the
   * database around exactly that phase; what {@link #after} returns joins the result's metrics.
   */
  public interface Phases {
    Phases NONE = new Phases() {
      @Override
      public void before(String phase) {}

      @Override
      public Map<String, Object> after(String phase, long events) {
        return Map.of();
      }
    };

    void before(String phase) throws Exception;

    Map<String, Object> after(String phase, long events) throws Exception;
  }

  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private final Phases phases;
  private int topicNo;
  private Map<String, Object> prefillMetrics = Map.of();

  public DebeziumRelay(PostgresDatabase db, KafkaBroker broker, String runId) {
    this(db, broker, runId, Phases.NONE);
  }

  public DebeziumRelay(PostgresDatabase db, KafkaBroker broker, String runId, Phases phases) {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
    this.phases = phases;
  }

  /**
   * Makes a fresh slot and writes the backlog.
   *
   * @return the seconds the writing took
   */
  public double prefill(Debezium.Writes writes, String slot, int events, int eventsPerTx, int aggregates)
      throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + Debezium.TABLE);
    }
    Debezium.createSlot(db.dataSource(), slot);
    long t0 = System.nanoTime();
    Map<String, Object> written;
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute(PREFILL_PROCEDURE);
      // The WAL the engine reads is the same with or without waiting for each commit's flush.
      st.execute("SET synchronous_commit = off");
      try (PreparedStatement ps = c.prepareStatement("CALL bench_debezium_prefill(?, ?, ?, ?)")) {
        ps.setInt(1, events);
        ps.setInt(2, aggregates);
        ps.setInt(3, eventsPerTx);
        ps.setBoolean(4, writes.deleteInTx());
        phases.before("prefill");
        ps.execute();
        written = phases.after("prefill", events);
      }
      st.execute("RESET synchronous_commit");
      st.execute("CHECKPOINT");
    }
    prefillMetrics = written;
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Prefills and drains once; one "relay" result named after {@code writes} and {@code setup}. */
  public Result measure(Debezium.Writes writes, Debezium.Setup setup, int events, int eventsPerTx, int aggregates,
      int partitions, Duration timeout) throws Exception {
    String slot = "bench_relay_" + (++topicNo);
    String topic = "bench-debezium-relay-" + runId + "-" + topicNo;
    try {
      double prefillSeconds = prefill(writes, slot, events, eventsPerTx, aggregates);
      System.out.printf("  %s: wrote %,d events (%d per tx%s) in %.1f s%n", writes.name(), events, eventsPerTx,
          writes.deleteInTx() ? ", deleted in the same tx" : "", prefillSeconds);
      Topics.createWarm(broker, topic, partitions);
      double others = Quiet.await(Set.of(broker.pid()));
      double load = Machine.load1();
      CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
      phases.before("drain");
      long start = System.nanoTime();
      long acked;
      long first;
      long last;
      long batches;
      boolean all;
      Map<String, Object> drained;
      try (OutboxEngine engine = OutboxEngine.start(db, setup, slot, topic, broker.bootstrapServers(), null)) {
        all = engine.awaitAcked(events, timeout);
        acked = engine.acked();
        drained = phases.after("drain", acked);
        first = engine.sink().firstAckNanos();
        last = engine.sink().lastAckNanos();
        batches = engine.sink().batches();
      }
      long elapsed = (all ? last : System.nanoTime()) - start;
      Map<String, Double> cpuUse = cpu.stop();
      double seconds = elapsed / 1e9;
      String variant = writes.deleteInTx() ? setup.name() : setup.name().replace("debezium", writes.name());
      Result r = new Result("relay", variant, load).loadAfter(Machine.load1())
          .param("workers", 1)
          .param("description", "Debezium " + "3.6.1.Final embedded engine, PostgreSQL connector (pgoutput), "
              + "EventRouter SMT, KafkaProducer acks=all + idempotence, markProcessed after each ack; "
              + (writes.deleteInTx() ? "insert + delete per tx" : "insert only"))
          .param("others_cpu_before", others)
          .param("events", events).param("events_per_tx", eventsPerTx).param("aggregates", aggregates)
          .param("topic_partitions", partitions).param("delete_in_tx", writes.deleteInTx())
          .param("poll_interval_ms", setup.pollIntervalMillis()).param("max_batch_size", setup.maxBatchSize());
      r.metric("events_per_s", acked / seconds)
          .metric("seconds", Math.round(seconds * 1000) / 1000.0)
          .metric("startup_s", first == 0 ? Double.NaN : Math.round((first - start) / 1e6) / 1000.0)
          .metric("streaming_events_per_s", last > first ? (acked - 1) / ((last - first) / 1e9) : Double.NaN)
          .metric("left_in_outbox", events - acked)
          .metric("engine_batches", batches)
          .metric("prefill_s", Math.round(prefillSeconds * 10) / 10.0)
          .metric("records_in_topic", recordsIn(topic, partitions));
      r.metrics(cpuUse);
      r.metrics(prefillMetrics);
      r.metrics(drained);
      System.out.printf("  %s: %,.0f events/s (%.2f s incl. start-up %.2f s; streaming %,.0f events/s; %d left)%n",
          variant, r.number("events_per_s"), seconds, r.number("startup_s"), r.number("streaming_events_per_s"),
          events - acked);
      return r;
    } finally {
      Debezium.dropSlot(db.dataSource(), slot);
      try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
        st.execute("TRUNCATE " + Debezium.TABLE);
      }
    }
  }

  private long recordsIn(String topic, int partitions) {
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
