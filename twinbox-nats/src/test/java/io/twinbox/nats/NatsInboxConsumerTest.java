package io.twinbox.nats;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.impl.Headers;
import io.twinbox.Inbox;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.contract.TcpProxy;
import io.twinbox.testkit.contract.TransportContract;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Messages the consumer can never process are parked, terminated on the server, and the stream moves on. */
class NatsInboxConsumerTest {
  private static NatsFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new NatsFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @Test
  void unreadableAndUnprocessableMessagesAreParkedAndTerminated() throws Exception {
    String dest = fixture.createDestination("unreadable");
    String stream = NatsFixture.streamName(dest);
    try (NatsPublisher p = NatsPublisher.builder(fixture.admin()).subjectRouter(m -> "tb." + dest + ".x").build()) {
      assertThat(p.send(io.twinbox.testkit.contract.TransportContract.message("a", 1, "{\"ok\":1}")).get(10,
          TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.send(io.twinbox.testkit.contract.TransportContract.message("b", 1, "{\"v\":\"unknown\"}")).get(10,
          TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
    }
    var js = fixture.admin().jetStream();
    js.publish("tb." + dest + ".raw", "hello".getBytes(StandardCharsets.UTF_8)); // not a CloudEvent
    Headers h = new Headers().add("ce-specversion", "1.0").add("ce-id", "bad-json").add("ce-type", "T")
        .add("ce-source", "/x");
    js.publish("tb." + dest + ".raw", h, "{not json".getBytes(StandardCharsets.UTF_8));
    List<String> handled = new ArrayList<>();
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(fixture.store()), "unreadable").build();
    try (InboxConsumer c = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), stream, "unreadable")
        .inbox(inbox, fixture.dataSource()).handler((conn, m) -> {
          if (m.payload().contains("unknown")) {
            throw new UnprocessableMessageException("contract version not supported");
          }
          handled.add(m.aggregateId());
        }).build()) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> c.stats().parked() == 3 && c.stats().processed() == 1);
      assertThat(c.stats().terminated()).isEqualTo(3);
    }
    assertThat(handled).as("a rolled-back batch runs a handler again").containsOnly("a");
    assertThat(fixture.admin().jetStreamManagement().getConsumerInfo(stream, "unreadable").getNumAckPending())
        .as("nothing left unacknowledged").isZero();
    try (Connection conn = fixture.dataSource().getConnection();
        ResultSet rs = conn.createStatement().executeQuery(
            "SELECT message_id, reason FROM twinbox_inbox_parked WHERE consumer = 'unreadable' ORDER BY message_id")) {
      List<String> parked = new ArrayList<>();
      while (rs.next()) {
        parked.add(rs.getString(1) + " | " + rs.getString(2));
      }
      assertThat(parked).hasSize(3);
      assertThat(String.join("\n", parked)).contains("not a CloudEvent").contains("unreadable CloudEvent bad-json")
          .contains("unprocessable");
    }
  }

  /**
   * A batch processed but not acknowledged (the link was cut before the commit, so every ack was
   * lost) comes back after ackWait with a delivery count of 2. The inbox holds every id, so the
   * redelivered copies are duplicates: they must be skipped in ordinary batches, not one message
   * and two transactions at a time (the NATS redelivery storm of the fault suite's notes).
   */
  @Test
  void redeliveredMessagesTheInboxAlreadyHoldsAreSkippedInBatches() throws Exception {
    String dest = fixture.createDestination("redelivered");
    String stream = NatsFixture.streamName(dest);
    int n = 100;
    try (NatsPublisher p = NatsPublisher.builder(fixture.admin()).subjectRouter(m -> "tb." + dest + ".x").build()) {
      for (int i = 0; i < n; i++) {
        assertThat(p.send(TransportContract.message("agg-" + i, 1, "{\"n\":" + i + "}")).get(10, TimeUnit.SECONDS))
            .isEqualTo(PublishOutcome.acked());
      }
    }
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(fixture.store()), "redelivered").build();
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build();
    AtomicInteger effects = new AtomicInteger();
    TcpProxy link = TcpProxy.start(NatsFixture.HOST, NatsFixture.PORT);
    try (InboxConsumer first = NatsInboxConsumer.builder(NatsFixture.url(link.port()), stream, "redelivered")
        .inbox(inbox, fixture.dataSource()).batchSize(n).batchWait(Duration.ofMillis(500))
        .ackWait(Duration.ofSeconds(2)).retryPolicy(retry)
        .handler((conn, m) -> {
          if (effects.incrementAndGet() == n) {
            link.cut(); // the commit still happens; the acks after it are lost
          }
        }).build()) {
      first.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> first.stats().processed() == n);
    } finally {
      link.close();
    }
    List<String> handledAgain = new CopyOnWriteArrayList<>();
    InboxConsumer.Stats stats;
    try (InboxConsumer second = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), stream, "redelivered")
        .inbox(inbox, fixture.dataSource()).batchSize(n).batchWait(Duration.ofMillis(500))
        .ackWait(Duration.ofSeconds(2)).retryPolicy(retry)
        .handler((conn, m) -> handledAgain.add(m.id())).build()) {
      second.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> second.stats().duplicates() > 0
          && fixture.admin().jetStreamManagement().getConsumerInfo(stream, "redelivered").getNumAckPending() == 0);
      stats = second.stats();
    }
    assertThat(effects).as("each message applied once, by the first consumer").hasValue(n);
    assertThat(handledAgain).as("no handler runs for a message the inbox holds").isEmpty();
    assertThat(stats.redelivered()).as("the scenario happened: most of the batch came back").isGreaterThanOrEqualTo(n / 2);
    assertThat(stats.duplicates()).isEqualTo(stats.redelivered());
    assertThat(stats.transactions()).as("duplicates skipped in batches of up to %d, not one by one", n)
        .isLessThanOrEqualTo(3);
  }

  /**
   * Every delivery counts against JetStream's {@code maxDeliver}, not only the inbox's attempts:
   * the give-backs ({@code nak}) of messages fetched but not done when a consumer closes, and the
   * redeliveries after another message's crash. A finite limit therefore let the server stop
   * delivering a healthy message that the inbox never saw end — neither applied nor parked (the
   * fault suite's D6 on NATS: after 12 consumer deaths a third message was never delivered again).
   * With the default (no limit) it comes, and the inbox's own {@code maxAttempts} bounds a poison
   * message's runs.
   */
  @Test
  void aMessageGivenBackMoreOftenThanTheOldDeliveryLimitIsStillApplied() throws Exception {
    String dest = fixture.createDestination("givenback");
    String stream = NatsFixture.streamName(dest);
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(fixture.store()), "givenback").build();
    List<String> applied = new CopyOnWriteArrayList<>();
    NatsInboxConsumer.Builder builder = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), stream, "givenback")
        .inbox(inbox, fixture.dataSource()).handler((conn, m) -> applied.add(m.id()));
    try (InboxConsumer c = builder.build()) {
      c.start(); // creates the durable consumer with the builder's settings
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> fixture.admin().jetStreamManagement()
          .getConsumerInfo(stream, "givenback") != null);
    }
    try (NatsPublisher p = NatsPublisher.builder(fixture.admin()).subjectRouter(m -> "tb." + dest + ".x").build()) {
      assertThat(p.send(TransportContract.message("agg-1", 1, "{\"n\":1}")).get(10, TimeUnit.SECONDS))
          .isEqualTo(PublishOutcome.acked());
    }
    var js = fixture.admin().jetStream();
    var sub = js.subscribe(null, io.nats.client.PullSubscribeOptions.bind(stream, "givenback"));
    int deliveries = 0;
    for (int i = 0; i < 25; i++) { // 25 consumers that fetched it and closed before its turn
      List<io.nats.client.Message> got = sub.fetch(1, Duration.ofSeconds(2));
      if (got.isEmpty()) {
        break;
      }
      deliveries++;
      got.get(0).nak();
    }
    sub.unsubscribe();
    assertThat(deliveries).as("deliveries the server made").isEqualTo(25);

    try (InboxConsumer c = builder.build()) {
      c.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.stats().processed() == 1);
    }
    assertThat(applied).hasSize(1);
    assertThat(fixture.admin().jetStreamManagement().getConsumerInfo(stream, "givenback").getConsumerConfiguration()
        .getMaxDeliver()).as("the durable's delivery limit").isEqualTo(-1);
  }
}
