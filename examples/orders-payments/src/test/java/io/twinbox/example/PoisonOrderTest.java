package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.RetryPolicy;
import io.twinbox.testkit.PostgresDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3 (FAULTS D4, D5): three poison {@code OrderCreated} messages among 800 good orders.
 *
 * <ul>
 *   <li>a malformed one, written through the outbox by a buggy producer ({@code amountCents} is
 *       text): the handler throws {@code UnprocessableMessageException}, parked at once;
 *   <li>an unreadable record put on the topic by hand (no CloudEvents headers, truncated JSON):
 *       parked at once by the consumer adapter;
 *   <li>a well-formed order whose handler always throws (the payments database refuses the
 *       customer through a trigger): retried, then parked after exactly the configured 3 attempts.
 * </ul>
 *
 * <p>Each is parked with its reason, and everything else — including the orders behind the poison
 * on its own partition — is paid for or declined as usual.
 */
class PoisonOrderTest {
  private static final int MAX_ATTEMPTS = 3;
  private static final String POISON_CUSTOMER = "c-poison";
  private static PostgresDatabase ordersDb;
  private static PostgresDatabase paymentsDb;

  @BeforeAll
  static void databases() {
    ordersDb = PostgresDatabase.create();
    paymentsDb = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    ordersDb.close();
    paymentsDb.close();
  }

  @Test
  void poisonIsParkedWithItsReasonAndTheRestFlows() throws Exception {
    Topics topics = TestServers.topics("poison");
    OrderService orders = new OrderService(ordersDb.dataSource());
    PaymentService payments = new PaymentService(paymentsDb.dataSource());
    orders.migrate();
    payments.migrate();
    payments.openWallets(100, 10_000);
    exec(paymentsDb.dataSource(), """
        CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.customer_id = 'c-poison' THEN
            RAISE EXCEPTION 'card network refuses customer %', NEW.customer_id;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER refuse_poison BEFORE INSERT ON payments FOR EACH ROW EXECUTE FUNCTION refuse_poison()""");
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS)
        .backoff(Duration.ofMillis(100), Duration.ofMillis(400)).build();

    List<UUID> good = new ArrayList<>();
    UUID poisonOrder;
    try (Chaos calm = new Chaos(Chaos.Settings.off());
        RunningServices services = RunningServices.start(orders, payments, topics, calm,
            ConsumerSettings.defaults().withRetry(retry))) {
      place(orders, good, 400);
      writeMalformedOrderCreated(orders);
      RecordMetadata unreadable = produceUnreadableRecord(topics);
      poisonOrder = orders.placeOrder(POISON_CUSTOMER, 1_000);
      place(orders, good, 400);

      await("good orders settled and poison parked").atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> Progress.settled(ordersDb.dataSource()) == good.size()
              && parked(paymentsDb.dataSource()).size() == 3);

      assertThat(services.orderEventsPublished()).as("good orders, the malformed event and the poison order")
          .isEqualTo(good.size() + 2);
      Map<String, Map<String, Object>> parked = parked(paymentsDb.dataSource());
      Map<String, Object> malformed = parked.get("OrderCreated/malformed");
      assertThat((String) malformed.get("reason")).startsWith("unprocessable:").contains("amountCents");
      assertThat(malformed.get("attempts")).isEqualTo(1);
      Map<String, Object> unreadableRow = parked.get("unreadable");
      assertThat((String) unreadableRow.get("reason")).contains("not a CloudEvent");
      assertThat((String) unreadableRow.get("origin")).isEqualTo(
          topics.orders() + "-" + unreadable.partition() + "@" + unreadable.offset());
      Map<String, Object> throwing = parked.get("OrderCreated/" + poisonOrder);
      assertThat((String) throwing.get("reason"))
          .startsWith("handler failed " + MAX_ATTEMPTS + " times")
          .contains("card network refuses customer c-poison");
      assertThat(throwing.get("attempts")).isEqualTo(MAX_ATTEMPTS);

      // The partition behind the always-failing order kept flowing.
      String origin = (String) throwing.get("origin");
      List<UUID> behind = ordersAfter(topics, origin);
      assertThat(behind).as("good orders behind the poison on " + origin).hasSizeGreaterThan(10);
      assertThat(statuses(behind)).doesNotContain("PENDING");
    }
    assertThat(statuses(good)).hasSize(good.size()).doesNotContain("PENDING");
    assertThat(statuses(List.of(poisonOrder))).containsExactly("PENDING");
    assertThat(Verification.longs(paymentsDb.dataSource(),
        "SELECT count(*) FROM payments WHERE customer_id = 'c-poison'")[0]).isZero();
  }

  private static void place(OrderService orders, List<UUID> ids, int n) throws SQLException {
    for (int i = 0; i < n; i++) {
      ids.add(orders.placeOrder("c-" + (1 + i % 100), 100 + i));
    }
  }

  /** A producer bug: amountCents as text. Valid JSON, so the outbox accepts it; the contract does not. */
  private static void writeMalformedOrderCreated(OrderService orders) throws SQLException {
    Outbox outbox = Outbox.builder(orders.store()).build();
    try (Connection c = ordersDb.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder(Events.ORDER_CREATED, 1).aggregate(OrderService.AGGREGATE, "malformed")
          .payload("{\"orderId\":\"" + UUID.randomUUID() + "\",\"customerId\":\"c-1\",\"amountCents\":\"lots\"}")
          .build());
      c.commit();
    }
  }

  /** Not from any outbox: no CloudEvents headers and a truncated JSON value. */
  private static RecordMetadata produceUnreadableRecord(Topics topics) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      return producer.send(new ProducerRecord<>(topics.orders(), "unreadable", "{\"orderId\": ")).get();
    }
  }

  /** Parked rows of the payment service, keyed by "type/aggregate id" (or "unreadable"). */
  private static Map<String, Map<String, Object>> parked(DataSource ds) throws SQLException {
    Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT type, aggregate_id, reason, attempts, origin FROM twinbox_inbox_parked"
            + " WHERE consumer = 'payment-service' ORDER BY id")) {
      while (rs.next()) {
        String key = "unreadable".equals(rs.getString(1)) ? "unreadable" : rs.getString(1) + "/" + rs.getString(2);
        rows.put(key, Map.of("reason", rs.getString(3), "attempts", rs.getInt(4), "origin", rs.getString(5)));
      }
    }
    return rows;
  }

  /** Order ids of the OrderCreated records after {@code origin} ("topic-partition@offset") on its partition. */
  private static List<UUID> ordersAfter(Topics topics, String origin) {
    int at = origin.lastIndexOf('@');
    int dash = origin.lastIndexOf('-', at);
    TopicPartition tp = new TopicPartition(origin.substring(0, dash), Integer.parseInt(origin.substring(dash + 1, at)));
    long offset = Long.parseLong(origin.substring(at + 1));
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<UUID> ids = new ArrayList<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.assign(List.of(tp));
      c.seek(tp, offset + 1);
      long end = c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          if (r.key().length() == 36) { // an order id, not one of the hand-made poison keys
            ids.add(UUID.fromString(r.key()));
          }
        }
      }
    }
    return ids;
  }

  private static List<String> statuses(List<UUID> ids) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ordersDb.dataSource().getConnection();
        var ps = c.prepareStatement("SELECT status FROM orders WHERE id = ANY(?)")) {
      ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
