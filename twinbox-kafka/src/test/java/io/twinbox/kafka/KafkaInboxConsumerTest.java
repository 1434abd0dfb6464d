package io.twinbox.kafka;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The consumer side on a real broker and a real PostgreSQL: one effect per message. */
class KafkaInboxConsumerTest {
  static PostgresDatabase db;
  static JdbcStore store;
  static KafkaBroker broker;
  static KafkaPublisher publisher;

  /** Debits the wallet named in the payload; the ledger row's unique key is a second guard. */
  static final AtomicInteger POISON_RUNS = new AtomicInteger();

  static final AtomicInteger FLAKY_CONFLICTS = new AtomicInteger();

  static final InboxHandler DEBIT = (c, m) -> {
    if (m.payload().contains("\"flaky\"") && FLAKY_CONFLICTS.getAndIncrement() < 5) {
      throw new java.sql.SQLException("could not serialize access", "40001"); // FAULTS D8
    }
    if (m.payload().contains("\"poison\"")) {
      POISON_RUNS.incrementAndGet();
      throw new IllegalStateException("this handler always fails on poison");
    }
    if (m.payload().contains("\"unknown-version\"")) {
      throw new UnprocessableMessageException("contract version not supported");
    }
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO ledger (message_id, wallet, amount) VALUES (?, ?, 1)")) {
      ps.setString(1, m.id());
      ps.setString(2, m.aggregateId());
      ps.executeUpdate();
    }
  };

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE ledger (message_id text PRIMARY KEY, wallet text NOT NULL, amount int NOT NULL)");
    }
    broker = KafkaBroker.shared();
    publisher = KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(m -> m.aggregateType()).build();
  }

  @AfterAll
  static void tearDown() {
    publisher.close();
    db.close();
  }

  static OutboxMessage message(String topic, String wallet, long seq, String payload) {
    return new OutboxMessage(seq, UUID.randomUUID(), topic, wallet, seq, 0, "OrderCreated", 1, payload, Map.of(),
        "corr", null, null, Instant.now(), Instant.now(), 0, "/orders");
  }

  /** Publishes and waits for every ack; UNAVAILABLE (e.g. slow metadata under load) is retried, as a relay would. */
  static void publish(List<OutboxMessage> messages) throws Exception {
    List<OutboxMessage> todo = messages;
    for (int round = 0; round < 5 && !todo.isEmpty(); round++) {
      List<CompletableFuture<PublishOutcome>> acks = new ArrayList<>();
      for (OutboxMessage m : todo) {
        acks.add(publisher.send(m));
      }
      List<OutboxMessage> again = new ArrayList<>();
      for (int i = 0; i < acks.size(); i++) {
        PublishOutcome o = acks.get(i).get();
        if (o.kind() == PublishOutcome.Kind.UNAVAILABLE) {
          again.add(todo.get(i));
        } else {
          assertThat(o.kind()).as(o.reason()).isEqualTo(PublishOutcome.Kind.ACKED);
        }
      }
      todo = again;
    }
    assertThat(todo).as("still unavailable after 5 rounds").isEmpty();
  }

  static long count(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static InboxConsumer consumer(String topic, String consumerName, int batch) {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), consumerName).build();
    return KafkaInboxConsumer.builder(broker.bootstrapServers(), consumerName)
        .topics(topic).inbox(inbox, db.dataSource()).handler(DEBIT).batchSize(batch)
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(20), Duration.ofMillis(50)).build())
        .build();
  }

  @Test
  void everyMessageIsAppliedOnceThoughEachArrivesTwiceAndTheConsumerRestarts() throws Exception {
    String topic = "wallets-" + UUID.randomUUID();
    broker.createTopic(topic, 4);
    List<OutboxMessage> messages = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      messages.add(message(topic, "w-" + (i % 50), i / 50 + 1, "{\"amount\":1}"));
    }
    publish(messages);
    publish(messages); // every message a second time: the relay republished
    InboxConsumer first = consumer(topic, "payments-" + topic, 50);
    first.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM ledger WHERE wallet LIKE 'w-%'") >= 500);
    first.close(); // mid-run restart
    InboxConsumer second = consumer(topic, "payments-" + topic, 50);
    second.start();
    await().atMost(Duration.ofSeconds(60)).until(() ->
        first.stats().processed() + second.stats().processed() + first.stats().duplicates() + second.stats().duplicates() >= 4_000);
    second.close();
    assertThat(count("SELECT count(*) FROM ledger WHERE wallet LIKE 'w-%'")).isEqualTo(2_000);
    assertThat(first.stats().processed() + second.stats().processed()).isEqualTo(2_000);
    assertThat(first.stats().duplicates() + second.stats().duplicates()).isGreaterThanOrEqualTo(2_000);
    assertThat(first.stats().parked() + second.stats().parked()).isZero();
  }

  @Test
  void poisonIsParkedAndThePartitionKeepsFlowing() throws Exception {
    String topic = "poison-" + UUID.randomUUID();
    broker.createTopic(topic, 1); // one partition: everything queues behind the poison
    List<OutboxMessage> before = new ArrayList<>();
    List<OutboxMessage> after = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      before.add(message(topic, "p-" + i, 1, "{\"amount\":1}"));
      after.add(message(topic, "q-" + i, 1, "{\"amount\":1}"));
    }
    publish(before);
    publish(List.of(message(topic, "x", 1, "{\"kind\":\"poison\"}")));
    publish(List.of(message(topic, "y", 1, "{\"kind\":\"unknown-version\"}")));
    publish(List.of(message(topic, "q-flaky", 1, "{\"kind\":\"flaky\"}")));
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      // A CloudEvent whose payload is not JSON, and a record that is no CloudEvent at all.
      ProducerRecord<String, byte[]> malformed = new ProducerRecord<>(topic, "z", "{not json".getBytes(StandardCharsets.UTF_8));
      for (String[] h : new String[][] {{"ce_specversion", "1.0"}, {"ce_id", "bad-json-1"}, {"ce_type", "OrderCreated"},
          {"ce_source", "/orders"}, {"content-type", "application/json"}}) {
        malformed.headers().add(h[0], h[1].getBytes(StandardCharsets.UTF_8));
      }
      raw.send(malformed).get();
      raw.send(new ProducerRecord<>(topic, "plain", "hello".getBytes(StandardCharsets.UTF_8))).get();
    }
    publish(after);
    try (InboxConsumer c = consumer(topic, "poison-" + topic, 10)) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM ledger WHERE wallet LIKE 'q-%'") == 21);
      assertThat(c.stats().parked()).isEqualTo(4);
    }
    // FAULTS D5: the always-failing handler ran exactly maxAttempts (3) times, wherever the poison
    // sat in its batch (a mid-batch failure counts as an attempt too).
    assertThat(POISON_RUNS.get()).isEqualTo(3);
    // Five serialization failures with maxAttempts 3: retried without using attempts, then applied.
    assertThat(FLAKY_CONFLICTS.get()).isGreaterThanOrEqualTo(6);
    assertThat(count("SELECT count(*) FROM ledger WHERE wallet = 'q-flaky'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM ledger WHERE wallet LIKE 'p-%'")).isEqualTo(20);
    assertThat(count("SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'poison-" + topic
        + "' AND reason LIKE 'handler failed 3 times%always fails%'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'poison-" + topic
        + "' AND reason LIKE 'unprocessable%'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'poison-" + topic
        + "' AND (reason LIKE 'not a CloudEvent%' OR reason LIKE 'unreadable CloudEvent bad-json-1%')")).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM twinbox_inbox_attempt")).isZero();
  }
}
