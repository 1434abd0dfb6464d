package io.twinbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.contract.Sql;
import io.twinbox.testkit.contract.TransportContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dead letters on the consumer side (issue 17), on RabbitMQ and PostgreSQL: a message the handler
 * refuses is parked, then forwarded once to the dead-letter exchange with its original id and
 * payload and the extensions {@code dlqreason}, {@code dlqattempts}, {@code dlqconsumer}, {@code
 * dlqparkedat}, read with the CloudEvents SDK alone; the parked row stays parked, marked forwarded.
 */
class RabbitParkedForwardTest {
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
  void aParkedMessageIsForwardedOnceToTheDeadLetterExchange() throws Exception {
    String ex = "tbpark." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology main = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    RabbitTopology dlq = fixture.declare(RabbitTopology.builder(ex + ".dlq").queue(ex + ".dlq.q").build());
    OutboxMessage poison = TransportContract.message("a", 1, "{\"poison\":true}");
    OutboxMessage fine = TransportContract.message("b", 1, "{\"n\":1}");
    try (RabbitPublisher p = fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build()) {
      assertThat(p.send(poison).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.send(fine).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      String consumer = "forward-" + ex;
      Inbox inbox = Inbox.builder(fixture.inboxStore(), consumer).build();
      try (InboxConsumer c = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), main.queue())
          .inbox(inbox, fixture.dataSource()).handler((conn, m) -> {
            if (m.payload().contains("poison")) {
              throw new UnprocessableMessageException("contract version not supported");
            }
          }).deadLetters(p.deadLetters().orElseThrow()).build()) {
        c.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> c.forwarded() == 1 && c.stats().processed() == 1);
        GetResponse r;
        try (Channel ch = fixture.admin().createChannel()) {
          r = ch.basicGet(dlq.queue(), true);
          assertThat(r).isNotNull();
          Thread.sleep(1_500);
          assertThat(ch.basicGet(dlq.queue(), true)).as("forwarded once").isNull();
        }
        CloudEvent e = new RabbitCloudEventsSdkReaderTest.AmqpReader(r.getProps(), r.getBody()).toEvent();
        assertThat(e.getId()).isEqualTo(poison.id().toString());
        assertThat(e.getType()).isEqualTo("OrderPlaced");
        assertThat(e.getSource().toString()).isEqualTo(TransportContract.SOURCE);
        assertThat(e.getSubject()).isEqualTo("a");
        assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"poison\":true}");
        assertThat(e.getExtension("dlqreason").toString()).contains("contract version not supported");
        assertThat(e.getExtension("dlqconsumer")).isEqualTo(consumer);
        assertThat(e.getExtension("dlqattempts")).isNotNull();
        assertThat(OffsetDateTime.parse(e.getExtension("dlqparkedat").toString())).isNotNull();
        assertThat(e.getExtension("correlationid")).isEqualTo("corr-a");
        assertThat(Sql.count(fixture.dataSource(),
            "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = ? AND dead_letter = 'SENT'", consumer))
            .as("still parked, marked forwarded").isEqualTo(1);
      }
    }
  }
}
