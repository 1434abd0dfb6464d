package io.twinbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedState;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.TwinboxAdmin;
import io.twinbox.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, acceptance 2 end to end on RabbitMQ: outbox → relay → RabbitMQ → {@code
 * RabbitInboxConsumer}; a handler that fails for one message parks it, the queue moves on; after
 * the handler is fixed, the operator's replay (through {@link TwinboxAdmin}, as the CLI and admin
 * page do) is applied once by the running consumer (effect count 1), a second replay is a typed
 * error that changes nothing, a discard leaves an audit record.
 */
class RabbitParkedReplayTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS test_effect (message_id varchar(255) NOT NULL)");
    }
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  private static long effects(String messageId) throws Exception {
    try (Connection c = fixture.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM test_effect WHERE message_id = ?")) {
      ps.setString(1, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void aFailingMessageIsParkedAndItsReplayAfterTheFixAppliesItOnce() throws Exception {
    String ex = "tbp." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    JdbcStore store = (JdbcStore) fixture.outboxStore();
    Outbox outbox = Outbox.builder(store).build();
    UUID[] ids = new UUID[3];
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 3; i++) {
        ids[i] = outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "o-" + i)
            .payload("{\"n\":" + i + "}").build());
      }
      c.commit();
    }
    String poisonId = ids[1].toString();
    AtomicBoolean broken = new AtomicBoolean(true);
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "rabbit-payments").build();
    TwinboxAdmin admin = TwinboxAdmin.of(store);
    try (Relay relay = Relay.builder(store, fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build())
            .pollInterval(Duration.ofMillis(50)).build();
        InboxConsumer consumer = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), t.queue())
            .inbox(inbox, fixture.dataSource()).replayInterval(Duration.ofMillis(200))
            .retryPolicy(RetryPolicy.builder().maxAttempts(2).backoff(Duration.ZERO, Duration.ofMillis(5)).build())
            .handler((conn, m) -> {
              try (PreparedStatement ps = conn.prepareStatement("INSERT INTO test_effect (message_id) VALUES (?)")) {
                ps.setString(1, m.id());
                ps.executeUpdate();
              }
              if (m.id().equals(poisonId) && broken.get()) {
                throw new IllegalStateException("payment provider refuses o-1");
              }
            }).build()) {
      relay.start();
      consumer.start();
      await().atMost(Duration.ofSeconds(60))
          .until(() -> consumer.stats().processed() == 2 && consumer.stats().parked() == 1);
      List<ParkedMessage> parked = admin.parked(ParkedFilter.open().consumer("rabbit-payments"));
      assertThat(parked).singleElement().satisfies(p -> {
        assertThat(p.messageId()).isEqualTo(poisonId);
        assertThat(p.reason()).contains("payment provider refuses o-1");
        assertThat(p.aggregateId()).isEqualTo("o-1");
      });
      long id = parked.get(0).id();
      assertThat(effects(poisonId)).isZero();

      broken.set(false); // the fix is deployed
      admin.replayParked(id, "alice");
      await().atMost(Duration.ofSeconds(30))
          .until(() -> admin.parkedMessage(id, false).state() == ParkedState.REPLAYED);
      assertThat(effects(poisonId)).isEqualTo(1);
      // Counted after the replay's commit: the state can be seen a moment before the count.
      await().atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(consumer.replays()).isEqualTo(new InboxConsumer.Replays(1, 0, 0)));

      ParkedMessage done = admin.parkedMessage(id, false);
      assertThatThrownBy(() -> admin.replayParked(id, "alice")).isInstanceOf(ParkedMessageException.class)
          .hasMessageContaining("already replayed");
      assertThatThrownBy(() -> admin.discardParked(id, "alice")).isInstanceOf(ParkedMessageException.class)
          .hasMessageContaining("already replayed");
      Thread.sleep(1_000); // five replay polls
      assertThat(admin.parkedMessage(id, false)).isEqualTo(done);
      assertThat(effects(poisonId)).isEqualTo(1);
      assertThat(effects(ids[0].toString()) + effects(ids[2].toString())).isEqualTo(2);
      assertThat(admin.parkedAudit(id)).extracting(ParkedAudit::action)
          .containsExactly(ParkedAudit.REPLAY_REQUESTED, ParkedAudit.REPLAYED);
    }
  }

  @Test
  void aDiscardLeavesAnAuditRecordAndTheConsumerNeverRunsTheMessage() throws Exception {
    String ex = "tbp." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    JdbcStore store = (JdbcStore) fixture.outboxStore();
    UUID event;
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      event = Outbox.builder(store).build().write(c, OutboxEvent.builder("OrderPlaced", 1)
          .aggregate("Order", "d-1").payload("{}").build());
      c.commit();
    }
    TwinboxAdmin admin = TwinboxAdmin.of(store);
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "rabbit-discard").build();
    try (Relay relay = Relay.builder(store, fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build())
            .pollInterval(Duration.ofMillis(50)).build();
        InboxConsumer consumer = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), t.queue())
            .inbox(inbox, fixture.dataSource()).replayInterval(Duration.ofMillis(200))
            .handler((conn, m) -> {
              throw new io.twinbox.UnprocessableMessageException("never");
            }).build()) {
      relay.start();
      consumer.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> consumer.stats().parked() == 1);
      long id = admin.parked(ParkedFilter.open().consumer("rabbit-discard")).get(0).id();
      assertThat(admin.discardParked(id, "ops-bob").state()).isEqualTo(ParkedState.DISCARDED);
      ParkedAudit a = admin.parkedAudit(id).get(0);
      assertThat(a.action()).isEqualTo(ParkedAudit.DISCARDED);
      assertThat(a.actor()).isEqualTo("ops-bob");
      assertThat(a.messageId()).isEqualTo(event.toString());
      assertThat(a.at()).isNotNull();
      assertThatThrownBy(() -> admin.replayParked(id, "ops-bob")).hasMessageContaining("already discarded");
      assertThat(effects(event.toString())).isZero();
    }
  }
}
