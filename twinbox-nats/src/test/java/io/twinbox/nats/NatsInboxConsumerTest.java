package io.twinbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.impl.Headers;
import io.twinbox.Inbox;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    try (NatsInboxConsumer c = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), stream, "unreadable")
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
}
