package io.twinbox.bench.relay;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.Pools;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The baselines of the relay scenario, in plain JDBC: {@link #rawSql} (claim + delete, no broker:
 * what the database allows) and {@link #bareKafka} (claim, send to Kafka, flush, delete, commit:
 * the "bare loop" of DESIGN.md — no ordering, fencing, leases or retries, and it holds its row
 * locks during broker I/O, which a real relay must not).
 */
public final class SqlDrainers {
  private SqlDrainers() {}

  static final String CLAIM = """
      SELECT position, id, aggregate_type, aggregate_id, sequence, partition_no, type, version,
             payload::text, headers::text, occurred_at
        FROM twinbox_outbox
       WHERE status = 'PENDING'
       ORDER BY position
       LIMIT ?
         FOR UPDATE SKIP LOCKED""";

  static final String DELETE = "DELETE FROM twinbox_outbox WHERE position = ANY(?)";

  /** A claimed row, as a relay would hold it in memory. */
  record Row(long position, String id, String aggregateType, String aggregateId, long sequence, int partition,
      String type, int version, String payload, String headers, java.sql.Timestamp occurredAt) {}

  public static Drainer rawSql(int claimers, int batch, boolean synchronousCommit) {
    return new Loop("raw-sql-limit", claimers, batch, synchronousCommit, false);
  }

  public static Drainer bareKafka(int claimers, int batch, boolean synchronousCommit) {
    return new Loop("bare-kafka-loop", claimers, batch, synchronousCommit, true);
  }

  private static final class Loop implements Drainer {
    private final String name;
    private final int claimers;
    private final int batch;
    private final boolean synchronousCommit;
    private final boolean kafka;

    Loop(String name, int claimers, int batch, boolean synchronousCommit, boolean kafka) {
      this.name = name;
      this.claimers = claimers;
      this.batch = batch;
      this.synchronousCommit = synchronousCommit;
      this.kafka = kafka;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Map<String, Object> params() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("claimers", claimers);
      m.put("batch", batch);
      m.put("synchronous_commit", synchronousCommit ? "on" : "off");
      m.put("description", kafka
          ? "claim N FOR UPDATE SKIP LOCKED, send to Kafka (acks=all, idempotent), flush, DELETE, commit"
          : "claim N FOR UPDATE SKIP LOCKED ORDER BY position, DELETE them, commit; no broker");
      return m;
    }

    @Override
    public Map<String, Object> drain(Context ctx) throws Exception {
      AtomicLong rows = new AtomicLong();
      AtomicLong batches = new AtomicLong();
      AtomicLong claimNanos = new AtomicLong();
      AtomicLong sendNanos = new AtomicLong();
      AtomicLong deleteNanos = new AtomicLong();
      List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
      try (HikariDataSource pool = Pools.create(ctx.db(), "bench-" + name, claimers, false)) {
        List<Thread> threads = new ArrayList<>();
        long deadline = System.nanoTime() + ctx.timeout().toNanos();
        for (int t = 0; t < claimers; t++) {
          Thread th = new Thread(() -> {
            try (Connection c = pool.getConnection();
                KafkaProducer<String, byte[]> producer = kafka ? producer(ctx.broker().bootstrapServers()) : null) {
              if (!synchronousCommit) {
                try (Statement st = c.createStatement()) {
                  st.execute("SET synchronous_commit = off");
                }
                c.commit();
              }
              while (System.nanoTime() < deadline) {
                long t0 = System.nanoTime();
                List<Row> claimed = claim(c, batch);
                long t1 = System.nanoTime();
                if (claimed.isEmpty()) {
                  c.commit();
                  break;
                }
                if (producer != null) {
                  send(producer, ctx.topic(), claimed);
                }
                long t2 = System.nanoTime();
                delete(c, claimed);
                c.commit();
                long t3 = System.nanoTime();
                claimNanos.addAndGet(t1 - t0);
                sendNanos.addAndGet(t2 - t1);
                deleteNanos.addAndGet(t3 - t2);
                rows.addAndGet(claimed.size());
                batches.incrementAndGet();
              }
            } catch (Exception e) {
              errors.add(e);
            }
          }, "bench-" + name + "-" + t);
          threads.add(th);
          th.start();
        }
        for (Thread th : threads) {
          th.join();
        }
      }
      if (!errors.isEmpty()) {
        throw new IllegalStateException(name + " failed", errors.get(0));
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("rows", rows.get());
      m.put("batches", batches.get());
      long b = Math.max(1, batches.get());
      m.put("claim_ms_per_batch", round(claimNanos.get() / 1e6 / b));
      if (kafka) {
        m.put("send_flush_ms_per_batch", round(sendNanos.get() / 1e6 / b));
      }
      m.put("delete_commit_ms_per_batch", round(deleteNanos.get() / 1e6 / b));
      return m;
    }
  }

  static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  static List<Row> claim(Connection c, int batch) throws SQLException {
    List<Row> rows = new ArrayList<>(batch);
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setInt(1, batch);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
              rs.getInt(6), rs.getString(7), rs.getInt(8), rs.getString(9), rs.getString(10), rs.getTimestamp(11)));
        }
      }
    }
    return rows;
  }

  static void delete(Connection c, List<Row> rows) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(DELETE)) {
      ps.setArray(1, c.createArrayOf("int8", rows.stream().map(Row::position).toArray()));
      ps.executeUpdate();
    }
  }

  /** A producer with the same forced settings and defaults as {@code KafkaPublisher}. */
  static KafkaProducer<String, byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 65_536);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  /** Sends a batch with minimal CloudEvents binary-mode headers, then waits for every ack. */
  static void send(KafkaProducer<String, byte[]> producer, String topic, List<Row> rows) throws Exception {
    List<Future<RecordMetadata>> acks = new ArrayList<>(rows.size());
    for (Row r : rows) {
      ProducerRecord<String, byte[]> rec = new ProducerRecord<>(topic, r.aggregateId(),
          r.payload().getBytes(StandardCharsets.UTF_8));
      rec.headers().add(new RecordHeader("ce_specversion", "1.0".getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("ce_id", r.id().getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("ce_source", "/bench".getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("ce_type", r.type().getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("ce_subject", r.aggregateId().getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("ce_sequence",
          Long.toString(r.sequence()).getBytes(StandardCharsets.UTF_8)));
      rec.headers().add(new RecordHeader("content-type", "application/json".getBytes(StandardCharsets.UTF_8)));
      acks.add(producer.send(rec));
    }
    producer.flush();
    for (Future<RecordMetadata> f : acks) {
      f.get(30, TimeUnit.SECONDS);
    }
  }
}
