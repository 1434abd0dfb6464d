package io.twinbox.bench.inbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxMessage;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Issue 3: consumed-and-applied messages/s, Kafka → PostgreSQL, through {@link KafkaInboxConsumer}
 * (1 and 50 messages per transaction, and 50 with 20% duplicates), next to a raw-SQL baseline on
 * the same database: plain JDBC, a batched multi-row INSERT into an inbox-like table plus one
 * UPDATE of a business row per message, N messages per transaction, messages already in memory (no
 * broker): the rate the library's inbox could at best reach on this database.
 *
 * <p>Every message's effect is {@code UPDATE accounts SET balance = balance + amount, updated_at =
 * now() WHERE id = ?} on one of 1,000 accounts, the amount read from the JSON payload (Jackson) in
 * both paths. The library's messages are pre-produced to a fresh topic as CloudEvents (binary mode)
 * before its clock starts; its rate is taken from its first applied message to its last (polled
 * every 10 ms), so the consumer group's join is not counted.
 */
public final class InboxBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int ACCOUNTS = 1000;

  /**
   * One contender: the library with a batch size (and duplicate share), raw SQL with a batch size
   * (messages in memory), or the same raw SQL fed by a plain {@code KafkaConsumer}.
   */
  public record Variant(String name, Kind kind, int batch, double duplicateShare, int messages) {
    /** Whether the messages come from a topic. */
    boolean library() {
      return kind == Kind.TWINBOX || kind == Kind.TWINBOX_BATCH_HANDLER || kind == Kind.RAW_BROKER;
    }
  }

  /** Who applies the messages. */
  public enum Kind {
    /** Plain JDBC, messages in memory: the database's limit. */
    RAW_SQL,
    /** As {@link #RAW_SQL}, but one UPDATE round trip per message, as a per-message handler does. */
    RAW_SQL_PER_ROW,
    /**
     * The broker's plain client (KafkaConsumer with a manual offset commit, or the {@link BrokerFeed}'s
     * loop) acknowledging after the database commit + the same plain JDBC: the hand-written baseline.
     */
    RAW_BROKER,
    /** {@link InboxConsumer}. */
    TWINBOX,
    /** {@link InboxConsumer} with an {@link InboxBatchHandler}: one JDBC batch of UPDATEs per transaction. */
    TWINBOX_BATCH_HANDLER,
    /**
     * As {@link #TWINBOX_BATCH_HANDLER}, fed by a {@link MemorySource} of the messages already decoded
     * (no broker): the library's database path alone, next to {@link #RAW_SQL}.
     */
    TWINBOX_NO_BROKER
  }

  private final PostgresDatabase db;
  private final KafkaBroker broker;
  private final String runId;
  private final int partitions;
  private int topicNo;
  private long sampleMillis;
  private BrokerFeed feed;

  /** Runs the broker variants on {@code feed} (RabbitMQ, NATS) instead of the Kafka broker; null: Kafka. */
  InboxBench feed(BrokerFeed feed) {
    this.feed = feed;
    return this;
  }

  /** The broker the messages come from: {@code kafka}, {@code rabbitmq} or {@code nats}. */
  public String brokerName() {
    return feed == null ? "kafka" : feed.name();
  }

  /** An inbox bench of the same database whose broker variants run on RabbitMQ ({@code amqp://...}). */
  public InboxBench onRabbit(String uri) throws SQLException {
    return new InboxBench(db, broker, runId, partitions).sampleEvery(sampleMillis).feed(new RabbitFeed(uri));
  }

  /** An inbox bench of the same database whose broker variants run on NATS JetStream. */
  public InboxBench onNats(String url) throws SQLException {
    return new InboxBench(db, broker, runId, partitions).sampleEvery(sampleMillis).feed(new NatsFeed(url));
  }

  /** Samples the library consumer's thread every {@code millis} (0: off); see {@link InboxSampler}. */
  public InboxBench sampleEvery(long millis) {
    this.sampleMillis = millis;
    return this;
  }

  public InboxBench(PostgresDatabase db, KafkaBroker broker, String runId, int partitions) throws SQLException {
    this.db = db;
    this.broker = broker;
    this.runId = runId;
    this.partitions = partitions;
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance bigint NOT NULL, "
          + "updated_at timestamptz NOT NULL)");
      st.execute("""
          CREATE TABLE IF NOT EXISTS raw_inbox (
            consumer varchar(255) NOT NULL, message_id varchar(255) NOT NULL, payload_hash char(64) NOT NULL,
            received_at timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (consumer, message_id))""");
      st.execute("CREATE INDEX IF NOT EXISTS raw_inbox_received ON raw_inbox (received_at)");
    }
  }

  /** Empties the inbox tables, resets the accounts, checkpoints: every variant starts alike. */
  private void reset() throws SQLException {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE accounts, raw_inbox, twinbox_inbox, twinbox_inbox_parked, twinbox_inbox_attempt");
      st.execute("INSERT INTO accounts SELECT g, 0, now() FROM generate_series(0, " + (ACCOUNTS - 1) + ") g");
      st.execute("VACUUM ANALYZE accounts");
      st.execute("VACUUM ANALYZE raw_inbox");
      st.execute("VACUUM ANALYZE twinbox_inbox");
      st.execute("CHECKPOINT");
    }
  }

  /** A message of the workload: id, account, payload. Duplicates repeat an earlier message exactly. */
  record Msg(String id, int account, String payload) {}

  static List<Msg> workload(int n, double duplicateShare, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Msg> out = new ArrayList<>(n);
    int fresh = 0;
    for (int i = 0; i < n; i++) {
      if (i > 10 && r.nextDouble() < duplicateShare) {
        out.add(out.get(r.nextInt(i)));
        continue;
      }
      int account = r.nextInt(ACCOUNTS);
      long cents = 100 + r.nextInt(100_000);
      String payload = String.format(Locale.ROOT, "{\"paymentId\":%d,\"account\":%d,\"amount\":%d,\"currency\":\"EUR\","
          + "\"reference\":\"order-%d\",\"channel\":\"web\"}", fresh, account, cents, fresh);
      out.add(new Msg("pay-" + seed + "-" + fresh++, account, payload));
    }
    return out;
  }

  /** The business effect, shared by both paths. */
  static void apply(PreparedStatement update, int account, String payload) throws Exception {
    long amount = JSON.readTree(payload).get("amount").asLong();
    update.setLong(1, amount);
    update.setInt(2, account);
  }

  static final String UPDATE = "UPDATE accounts SET balance = balance + ?, updated_at = now() WHERE id = ?";

  public Result measure(Variant v) throws Exception {
    reset();
    List<Msg> msgs = workload(v.messages(), v.duplicateShare(), topicNo + 17L);
    long distinct = msgs.stream().map(Msg::id).distinct().count();
    String topic = null;
    if (v.library()) {
      topic = "bench-inbox-" + brokerName() + "-" + runId + "-" + (++topicNo);
      if (feed == null) {
        produce(topic, msgs);
      } else {
        feed.fill(topic, msgs);
      }
    }
    try {
      return measured(v, msgs, distinct, topic);
    } finally {
      if (feed != null && topic != null) {
        feed.cleanUp();
      }
    }
  }

  private Result measured(Variant v, List<Msg> msgs, long distinct, String topic) throws Exception {
    double others = io.twinbox.bench.Quiet.await(Set.of(broker.pid()));
    double load = Machine.load1();
    CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
    Map<String, Object> m = switch (v.kind()) {
      case TWINBOX, TWINBOX_BATCH_HANDLER -> library(v, topic, msgs.size(), null);
      case TWINBOX_NO_BROKER -> library(v, topic, msgs.size(), new MemorySource(msgs));
      case RAW_BROKER -> feed == null ? rawKafka(v, topic, msgs.size()) : rawFeed(v, topic, msgs.size());
      case RAW_SQL, RAW_SQL_PER_ROW -> rawSql(v, msgs);
    };
    Map<String, Double> cpuUse = cpu.stop();
    String lib = feed == null ? "KafkaInboxConsumer.builder(bootstrap, group)" : feed.libraryDescription();
    Result r = new Result("inbox", v.name(), load).loadAfter(Machine.load1())
        .param("others_cpu_before", others).param("broker", brokerName()).param("kind", v.kind().name())
        .param("messages", msgs.size()).param("distinct_messages", distinct)
        .param("batch", v.batch()).param("duplicate_share", v.duplicateShare())
        .param("topic_partitions", v.library() && feed == null ? partitions : 0)
        .param("description", switch (v.kind()) {
          case TWINBOX -> lib + ".batchSize(" + v.batch() + "), JdbcInboxStore, handler: one UPDATE accounts";
          case TWINBOX_BATCH_HANDLER -> lib + ".batchSize(" + v.batch() + "), JdbcInboxStore, "
              + "InboxBatchHandler: one JDBC batch of UPDATE accounts per transaction";
          case TWINBOX_NO_BROKER -> "InboxConsumer.builder(source) over the messages decoded in memory (no broker), "
              + "batchSize(" + v.batch() + "), JdbcInboxStore, InboxBatchHandler";
          case RAW_SQL -> "plain JDBC, no broker: multi-row INSERT raw_inbox ON CONFLICT DO NOTHING + batched UPDATE "
              + "accounts, " + v.batch() + " per commit";
          case RAW_SQL_PER_ROW -> "plain JDBC, no broker: multi-row INSERT raw_inbox ON CONFLICT DO NOTHING + one "
              + "UPDATE accounts round trip per message (not JDBC-batched), " + v.batch() + " per commit";
          case RAW_BROKER -> (feed == null ? "plain KafkaConsumer (read_committed, commitSync after the DB commit)"
              : feed.rawDescription()) + " + the raw-SQL statements, up to " + v.batch() + " per commit";
        });
    m.forEach(r::metric);
    r.metrics(cpuUse);
    long balance = balanceSum();
    long expected = msgs.stream().filter(distinctFirst()).mapToLong(x -> amountOf(x.payload())).sum();
    r.metric("effects_correct", balance == expected);
    System.out.printf("  inbox %-40s batch %2d: %,8.0f msgs/s consumed, %,8.0f applied/s (%d dup suppressed, "
            + "effects %s)%n", v.name(), v.batch(), r.number("consumed_per_s"), r.number("applied_per_s"),
        ((Number) m.getOrDefault("duplicates", 0L)).longValue(), balance == expected ? "correct" : "WRONG");
    return r;
  }

  private static java.util.function.Predicate<Msg> distinctFirst() {
    Set<String> seen = new java.util.HashSet<>();
    return x -> seen.add(x.id());
  }

  private static long amountOf(String payload) {
    try {
      return JSON.readTree(payload).get("amount").asLong();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private long balanceSum() throws SQLException {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT coalesce(sum(balance), 0) FROM accounts")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Writes the workload to a fresh topic, keyed by account, as CloudEvents in binary mode. Not
   * {@code Topics.createWarm}: its warm-up records are no CloudEvents and would be parked inside the
   * measurement. Instead a non-idempotent producer with one request in flight (order kept, and
   * immune to the new-topic sequence stall that {@code Topics} describes).
   */
  private void produce(String topic, List<Msg> msgs) throws Exception {
    broker.createTopic(topic, partitions);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
    long t0 = System.nanoTime();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
        new ByteArraySerializer())) {
      for (Msg msg : msgs) {
        String key = "acct-" + msg.account();
        ProducerRecord<String, byte[]> rec = new ProducerRecord<>(topic, key,
            msg.payload().getBytes(StandardCharsets.UTF_8));
        header(rec, "ce_specversion", "1.0");
        header(rec, "ce_id", msg.id());
        header(rec, "ce_source", "/bench/payments");
        header(rec, "ce_type", "PaymentReceived");
        header(rec, "ce_subject", key);
        header(rec, "content-type", "application/json");
        producer.send(rec);
      }
      producer.flush();
    }
    System.out.printf("  produced %,d messages to %s in %.1f s%n", msgs.size(), topic, (System.nanoTime() - t0) / 1e9);
  }

  private static void header(ProducerRecord<String, byte[]> rec, String k, String v) {
    rec.headers().add(k, v.getBytes(StandardCharsets.UTF_8));
  }

  private Map<String, Object> library(Variant v, String topic, int total, MemorySource memory) throws Exception {
    try (HikariDataSource pool = Pools.create(db, "bench-inbox", 2, true)) {
      Inbox inbox = Inbox.builder(JdbcInboxStore.of(pool), "bench-payments").build();
      InboxConsumer.Builder<?> builder = memory != null ? InboxConsumer.builder(memory)
          : feed == null ? KafkaInboxConsumer.builder(broker.bootstrapServers(), "bench-" + topic).topics(topic)
          : feed.library(topic);
      builder.inbox(inbox, pool);
      builder.batchSize(v.batch());
      InboxConsumer consumer = builder
          .handler(v.kind() != Kind.TWINBOX ? (InboxBatchHandler) (c, msgs) -> {
            try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
              for (InboxMessage msg : msgs) {
                apply(ps, Integer.parseInt(msg.aggregateId().substring(5)), msg.payload());
                ps.addBatch();
              }
              ps.executeBatch();
            }
          } : (c, msg) -> {
            try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
              apply(ps, Integer.parseInt(msg.aggregateId().substring(5)), msg.payload());
              ps.executeUpdate();
            }
          })
          .build();
      long start = System.nanoTime();
      long first = -1;
      long firstCount = 0;
      long deadline = start + TimeUnit.SECONDS.toNanos(600);
      InboxConsumer.Stats s;
      InboxSampler sampler = null;
      try {
        consumer.start();
        if (sampleMillis > 0) {
          sampler = new InboxSampler(sampleMillis);
        }
        while (true) {
          s = consumer.stats();
          long done = s.processed() + s.duplicates() + s.parked();
          long now = System.nanoTime();
          if (first < 0 && done > 0) {
            first = now;
            firstCount = done;
          }
          if (done >= total || now > deadline || !consumer.isRunning()) {
            break;
          }
          TimeUnit.MILLISECONDS.sleep(10);
        }
      } finally {
        if (sampler != null) {
          sampler.close();
        }
        consumer.close();
      }
      long end = System.nanoTime();
      double seconds = (end - first) / 1e9;
      long done = s.processed() + s.duplicates() + s.parked();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("consumed_per_s", (done - firstCount) / seconds);
      m.put("applied_per_s", s.processed() * (done - firstCount) / (double) Math.max(1, done) / seconds);
      m.put("seconds", round(seconds));
      m.put("join_seconds", round((first - start) / 1e9));
      m.put("processed", s.processed());
      m.put("duplicates", s.duplicates());
      m.put("parked", s.parked());
      m.put("retries", s.retries());
      m.put("transactions", s.transactions());
      m.put("avg_tx_size", round(done / (double) Math.max(1, s.transactions())));
      m.put("complete", done >= total);
      if (sampler != null) {
        m.put("stack_samples", sampler.summary());
        System.out.println("    consumer thread: " + sampler.summary());
      }
      return m;
    }
  }

  private Map<String, Object> rawSql(Variant v, List<Msg> msgs) throws Exception {
    long applied = 0;
    long transactions = 0;
    long start;
    try (HikariDataSource pool = Pools.create(db, "bench-raw-inbox", 1, false);
        Connection c = pool.getConnection()) {
      start = System.nanoTime();
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (int from = 0; from < msgs.size(); from += v.batch()) {
        applied += applyChunk(c, msgs.subList(from, Math.min(msgs.size(), from + v.batch())), sha,
            v.kind() == Kind.RAW_SQL_PER_ROW);
        c.commit();
        transactions++;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumed_per_s", msgs.size() / seconds);
    m.put("applied_per_s", applied / seconds);
    m.put("seconds", round(seconds));
    m.put("processed", applied);
    m.put("duplicates", msgs.size() - applied);
    m.put("transactions", transactions);
    m.put("avg_tx_size", round(msgs.size() / (double) transactions));
    m.put("complete", true);
    return m;
  }

  /** The raw-SQL inbox: one multi-row INSERT ... ON CONFLICT DO NOTHING, then the batched UPDATEs. */
  private static long applyChunk(Connection c, List<Msg> chunk, MessageDigest sha, boolean perRow) throws Exception {
    Set<String> fresh = new java.util.HashSet<>();
    String sql = "INSERT INTO raw_inbox (consumer, message_id, payload_hash) VALUES "
        + String.join(",", java.util.Collections.nCopies(chunk.size(), "(?, ?, ?)"))
        + " ON CONFLICT DO NOTHING RETURNING message_id";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (Msg msg : chunk) {
        sha.reset();
        sha.update("PaymentReceived\n1\n".getBytes(StandardCharsets.UTF_8));
        ps.setString(i++, "bench-payments");
        ps.setString(i++, msg.id());
        ps.setString(i++, HexFormat.of().formatHex(sha.digest(msg.payload().getBytes(StandardCharsets.UTF_8))));
      }
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          fresh.add(rs.getString(1));
        }
      }
    }
    long applied = 0;
    try (PreparedStatement up = c.prepareStatement(UPDATE)) {
      for (Msg msg : chunk) {
        if (fresh.remove(msg.id())) { // a repeat inside the chunk is applied once
          apply(up, msg.account(), msg.payload());
          if (perRow) {
            up.executeUpdate();
          } else {
            up.addBatch();
          }
          applied++;
        }
      }
      if (!perRow) {
        up.executeBatch();
      }
    }
    return applied;
  }

  /**
   * The raw-SQL inbox fed by a plain KafkaConsumer: per poll and partition, chunks of up to
   * {@code batch} records (id from the {@code ce_id} header, account from the key), DB commit per
   * chunk, offsets committed synchronously after each poll — what the library does, minus the
   * CloudEvents decoding, the stored-hash check, retries and parking.
   */
  private Map<String, Object> rawKafka(Variant v, String topic, int total) throws Exception {
    Properties p = new Properties();
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, "bench-raw-" + topic);
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    long applied = 0;
    long done = 0;
    long transactions = 0;
    long first = -1;
    long firstCount = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
    try (HikariDataSource pool = Pools.create(db, "bench-raw-kafka", 1, false);
        Connection c = pool.getConnection();
        org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> consumer =
            new org.apache.kafka.clients.consumer.KafkaConsumer<>(p,
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      while (done < total && System.nanoTime() < deadline) {
        var records = consumer.poll(java.time.Duration.ofMillis(200));
        Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets =
            new java.util.HashMap<>();
        for (var tp : records.partitions()) {
          var list = records.records(tp);
          List<Msg> msgs = new ArrayList<>(list.size());
          for (var r : list) {
            msgs.add(new Msg(new String(r.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8),
                Integer.parseInt(r.key().substring(5)), new String(r.value(), StandardCharsets.UTF_8)));
          }
          for (int from = 0; from < msgs.size(); from += v.batch()) {
            List<Msg> chunk = msgs.subList(from, Math.min(msgs.size(), from + v.batch()));
            applied += applyChunk(c, chunk, sha, false);
            c.commit();
            transactions++;
            done += chunk.size();
            if (first < 0) {
              first = System.nanoTime();
              firstCount = chunk.size();
            }
          }
          offsets.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(list.get(list.size() - 1).offset() + 1));
        }
        if (!offsets.isEmpty()) {
          consumer.commitSync(offsets);
        }
      }
    }
    double seconds = (System.nanoTime() - first) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumed_per_s", (done - firstCount) / seconds);
    m.put("applied_per_s", applied * (done - firstCount) / (double) Math.max(1, done) / seconds);
    m.put("seconds", round(seconds));
    m.put("processed", applied);
    m.put("duplicates", done - applied);
    m.put("transactions", transactions);
    m.put("avg_tx_size", round(done / (double) Math.max(1, transactions)));
    m.put("complete", done >= total);
    return m;
  }

  /**
   * The raw-SQL inbox fed by the {@link BrokerFeed}'s plain client: chunks of up to {@code batch}
   * messages, DB commit per chunk, then the chunk acknowledged — what the library does, minus the
   * CloudEvents decoding, the stored-hash check, retries and parking.
   */
  private Map<String, Object> rawFeed(Variant v, String tag, int total) throws Exception {
    long applied = 0;
    long done = 0;
    long transactions = 0;
    long first = -1;
    long firstCount = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
    try (HikariDataSource pool = Pools.create(db, "bench-raw-" + feed.name(), 1, false);
        Connection c = pool.getConnection();
        BrokerFeed.Raw raw = feed.raw(tag, v.batch())) {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      while (done < total && System.nanoTime() < deadline) {
        List<Msg> chunk = raw.next();
        if (chunk.isEmpty()) {
          continue;
        }
        applied += applyChunk(c, chunk, sha, false);
        c.commit();
        raw.settle();
        transactions++;
        done += chunk.size();
        if (first < 0) {
          first = System.nanoTime();
          firstCount = chunk.size();
        }
      }
    }
    double seconds = (System.nanoTime() - first) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumed_per_s", (done - firstCount) / seconds);
    m.put("applied_per_s", applied * (done - firstCount) / (double) Math.max(1, done) / seconds);
    m.put("seconds", round(seconds));
    m.put("processed", applied);
    m.put("duplicates", done - applied);
    m.put("transactions", transactions);
    m.put("avg_tx_size", round(done / (double) Math.max(1, transactions)));
    m.put("complete", done >= total);
    return m;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  /** Per variant: mean and per-round consumed/s, ratio to the raw-SQL batched rate of the same run. */
  public static List<List<String>> table(List<Result> all, int rawBatch) {
    List<Result> inbox = all.stream().filter(r -> r.scenario().equals("inbox")).toList();
    Map<String, List<Result>> groups = new LinkedHashMap<>();
    for (Result r : inbox) {
      groups.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
    }
    double raw = groups.entrySet().stream().filter(e -> e.getKey().equals("raw-sql-batch-" + rawBatch))
        .mapToDouble(e -> mean(e.getValue(), "consumed_per_s")).findFirst().orElse(Double.NaN);
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("variant", "msgs/tx", "messages", "consumed/s (mean)", "per round", "applied/s",
        "dup suppressed", "avg tx size", "vs raw-sql-batch-" + rawBatch, "cpu other", "load1"));
    for (Map.Entry<String, List<Result>> e : groups.entrySet()) {
      List<Result> rs = e.getValue();
      Result f = rs.get(0);
      double eps = mean(rs, "consumed_per_s");
      rows.add(List.of(f.variant(), String.valueOf(f.param("batch")), Report.num(((Number) f.param("messages")).doubleValue()),
          Report.num(eps), String.join(" / ", rs.stream().map(r -> Report.num(r.number("consumed_per_s"))).toList()),
          Report.num(mean(rs, "applied_per_s")), Report.num(mean(rs, "duplicates")), Report.ms(mean(rs, "avg_tx_size")),
          Report.ratio(eps, raw), Report.ms(mean(rs, "cpu_other")),
          String.join(" / ", rs.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList())));
    }
    return rows;
  }

  static double mean(List<Result> rs, String metric) {
    return rs.stream().mapToDouble(r -> r.number(metric)).filter(x -> !Double.isNaN(x)).average().orElse(Double.NaN);
  }
}
