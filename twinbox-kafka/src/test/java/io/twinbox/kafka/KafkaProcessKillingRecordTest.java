package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * FAULTS D6 on Kafka: a record whose handler kills the consumer's process must be parked after at
 * most {@code maxAttempts} restarts, wherever it sits in the batch that was in flight when the
 * process died — not only when it is the first record of its partition after the restart. The
 * process death is played in one JVM: the handler throws {@link OutOfMemoryError}, which stops the
 * consumer without a commit or an acknowledgement of its batch (as a halt would), and a new
 * consumer of the same group takes over (as a restarted process would).
 */
class KafkaProcessKillingRecordTest {
  private static final int MAX_ATTEMPTS = 3;
  /** The killing record's place in its partition: behind records of the same, lost, batch. */
  private static final int KILLER_AT = 6;
  private static final int RESTART_BUDGET = 12;

  static PostgresDatabase db;
  static JdbcStore store;
  static KafkaBroker broker;
  static KafkaPublisher publisher;

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE applied (message_id text PRIMARY KEY)");
    }
    broker = KafkaBroker.shared();
    publisher = KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(OutboxMessage::aggregateType).build();
  }

  @AfterAll
  static void tearDown() {
    publisher.close();
    db.close();
  }

  @Test
  void aRecordThatKillsTheProcessIsParkedAfterAtMostMaxAttemptsRestartsWhereverItSitsInTheBatch() throws Exception {
    String topic = "killer-" + UUID.randomUUID();
    broker.createTopic(topic, 1);
    List<OutboxMessage> messages = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      messages.add(new OutboxMessage(i, UUID.randomUUID(), topic, "w-1", i, 0, "Debited", 1,
          i == KILLER_AT ? "{\"kill\":true}" : "{\"n\":" + i + "}", Map.of(), null, null, null, Instant.now(),
          Instant.now(), 0, "/wallets"));
    }
    for (OutboxMessage m : messages) {
      PublishOutcome outcome = publisher.send(m).get();
      for (int retry = 0; retry < 5 && outcome.kind() == PublishOutcome.Kind.UNAVAILABLE; retry++) {
        outcome = publisher.send(m).get(); // slow metadata under load, as a relay would retry
      }
      assertThat(outcome.kind()).as(outcome.reason()).isEqualTo(PublishOutcome.Kind.ACKED);
    }
    String killer = messages.get(KILLER_AT - 1).id().toString();
    AtomicInteger killerRuns = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.payload().contains("\"kill\"")) {
        killerRuns.incrementAndGet();
        throw new OutOfMemoryError("this record kills the process");
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO applied (message_id) VALUES (?)")) {
        ps.setString(1, m.id());
        ps.executeUpdate();
      }
    };
    int starts = 0;
    while (!parked(killer) && starts < RESTART_BUDGET) {
      starts++;
      Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "killer-consumer").build();
      try (InboxConsumer consumer = KafkaInboxConsumer.builder(broker.bootstrapServers(), "killer-" + topic)
          .topics(topic).inbox(inbox, db.dataSource()).handler(handler).batchSize(50)
          .retryPolicy(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).backoff(Duration.ofMillis(20),
              Duration.ofMillis(50)).build())
          .build()) {
        int before = killerRuns.get();
        consumer.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        // Until the process "dies" (the killer ran) or the killer is parked and the rest applied.
        while (consumer.isRunning() && killerRuns.get() == before && !(parked(killer) && applied() == 9)
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
      }
    }
    assertThat(parked(killer)).as("parked within " + RESTART_BUDGET + " starts (killer ran " + killerRuns.get()
        + " times, " + applied() + " others applied)").isTrue();
    assertThat(killerRuns.get()).as("runs of the killing record's handler (process deaths)")
        .isLessThanOrEqualTo(MAX_ATTEMPTS);
    assertThat(applied()).as("every other record applied").isEqualTo(9);
  }

  private static boolean parked(String id) throws Exception {
    return count("SELECT count(*) FROM twinbox_inbox_parked WHERE message_id = '" + id + "'") > 0;
  }

  private static long applied() throws Exception {
    return count("SELECT count(*) FROM applied");
  }

  private static long count(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
