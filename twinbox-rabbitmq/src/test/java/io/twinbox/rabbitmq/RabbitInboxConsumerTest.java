package io.twinbox.rabbitmq;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.twinbox.Inbox;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.contract.TransportContract;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Messages the consumer can never process are parked and acknowledged; the queue moves on and empties. */
class RabbitInboxConsumerTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @Test
  void unreadableAndUnprocessableMessagesAreParkedAndAcknowledged() throws Exception {
    String ex = "tbc." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    try (RabbitPublisher p = fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build()) {
      assertThat(p.send(TransportContract.message("a", 1, "{\"ok\":1}")).get(10, TimeUnit.SECONDS))
          .isEqualTo(PublishOutcome.acked());
      assertThat(p.send(TransportContract.message("b", 1, "{\"v\":\"unknown\"}")).get(10, TimeUnit.SECONDS))
          .isEqualTo(PublishOutcome.acked());
    }
    try (Channel ch = fixture.admin().createChannel()) {
      ch.basicPublish(ex, "raw", null, "hello".getBytes(StandardCharsets.UTF_8)); // not a CloudEvent
      ch.basicPublish(ex, "raw", new AMQP.BasicProperties.Builder().messageId("bad-json").headers(Map.of(
          "cloudEvents_specversion", "1.0", "cloudEvents_id", "bad-json", "cloudEvents_type", "T",
          "cloudEvents_source", "/x")).build(), "{not json".getBytes(StandardCharsets.UTF_8));
    }
    List<String> handled = new ArrayList<>();
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "unreadable").build();
    try (InboxConsumer c = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), t.queue())
        .inbox(inbox, fixture.dataSource()).handler((conn, m) -> {
          if (m.payload().contains("unknown")) {
            throw new UnprocessableMessageException("contract version not supported");
          }
          handled.add(m.aggregateId());
        }).build()) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> c.stats().parked() == 3 && c.stats().processed() == 1);
      try (Channel ch = fixture.admin().createChannel()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ch.queueDeclarePassive(t.queue()).getMessageCount() == 0
            && ch.queueDeclarePassive(t.queue()).getConsumerCount() == 1);
      }
    }
    try (Channel ch = fixture.admin().createChannel()) {
      assertThat(ch.queueDeclarePassive(t.queue()).getMessageCount()).as("all acknowledged").isZero();
    }
    assertThat(handled).as("a rolled-back batch runs a handler again").containsOnly("a");
    try (Connection conn = fixture.dataSource().getConnection();
        ResultSet rs = conn.createStatement().executeQuery(
            "SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'unreadable' ORDER BY reason")) {
      List<String> reasons = new ArrayList<>();
      while (rs.next()) {
        reasons.add(rs.getString(1));
      }
      assertThat(String.join("\n", reasons)).contains("not a CloudEvent").contains("unreadable CloudEvent bad-json")
          .contains("unprocessable");
    }
  }

  /**
   * Issue 22: a second, different unreadable message reusing an AMQP message-id was acknowledged
   * and dropped as a duplicate of the first. It is parked under an id of its own; a redelivery of
   * either (the same bytes again) is still recognised and not parked twice.
   */
  @Test
  void aDifferentUnreadableMessageReusingAMessageIdIsParkedNotDropped() throws Exception {
    String ex = "tbc." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    AMQP.BasicProperties reused = new AMQP.BasicProperties.Builder().messageId("legacy-7").build();
    try (Channel ch = fixture.admin().createChannel()) {
      ch.basicPublish(ex, "raw", reused, "first body".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish(ex, "raw", reused, "second, different body".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish(ex, "raw", reused, "first body".getBytes(StandardCharsets.UTF_8)); // redelivered copies
      ch.basicPublish(ex, "raw", reused, "second, different body".getBytes(StandardCharsets.UTF_8));
    }
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "reused-id").build();
    try (InboxConsumer c = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), t.queue())
        .inbox(inbox, fixture.dataSource()).handler((conn, m) -> {}).build()) {
      c.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.stats().parked() + c.stats().duplicates() == 4);
      assertThat(c.stats().parked()).isEqualTo(2);
    }
    try (Connection conn = fixture.dataSource().getConnection();
        ResultSet rs = conn.createStatement().executeQuery(
            "SELECT message_id, payload FROM twinbox_inbox_parked WHERE consumer = 'reused-id' ORDER BY id")) {
      List<String> parked = new ArrayList<>();
      while (rs.next()) {
        parked.add(rs.getString(1) + " | " + rs.getString(2));
      }
      assertThat(parked).hasSize(2);
      assertThat(parked.get(0)).isEqualTo("rabbitmq:legacy-7 | first body");
      assertThat(parked.get(1)).startsWith("rabbitmq:legacy-7#").endsWith(" | second, different body");
    }
  }
}
