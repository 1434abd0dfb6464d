package io.twinbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cloudevents.CloudEvent;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.contract.Sql;
import io.twinbox.testkit.contract.TransportContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dead letters on the consumer side on NATS JetStream and PostgreSQL: a message the handler
 * refuses is parked, then forwarded once to {@code dlq.<its subject>} with its original id and the
 * parked-message extensions, read with the CloudEvents SDK alone; the row stays parked, marked SENT.
 */
class NatsParkedForwardTest {
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
  void aParkedMessageIsForwardedOnceToTheDeadLetterSubject() throws Exception {
    String name = "pk" + UUID.randomUUID().toString().substring(0, 6);
    String main = NatsFixture.streamName("pk_" + name);
    String dlq = NatsFixture.streamName("pkdlq_" + name);
    NatsStreams.ensure(fixture.admin(), StreamConfiguration.builder().name(main).subjects("tbpk." + name + ".>")
        .storageType(StorageType.File).build());
    NatsStreams.ensure(fixture.admin(), StreamConfiguration.builder().name(dlq).subjects("dlq.tbpk." + name + ".>")
        .storageType(StorageType.File).build());
    OutboxMessage poison = TransportContract.message("a", 1, "{\"poison\":true}");
    OutboxMessage fine = TransportContract.message("b", 1, "{\"n\":1}");
    String consumer = "forward-" + name;
    try (NatsPublisher p = NatsPublisher.builder(NatsFixture.url(NatsFixture.PORT))
        .subjectRouter(m -> "tbpk." + name + "." + m.type()).build()) {
      assertThat(p.send(poison).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.send(fine).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      Inbox inbox = Inbox.builder(fixture.inboxStore(), consumer).build();
      try (InboxConsumer c = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), main, consumer)
          .inbox(inbox, fixture.dataSource()).handler((conn, m) -> {
            if (m.payload().contains("poison")) {
              throw new UnprocessableMessageException("contract version not supported");
            }
          }).deadLetters(p.deadLetters().orElseThrow()).build()) {
        c.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> c.forwarded() == 1 && c.stats().processed() == 1);
        Thread.sleep(1_500);
        JetStreamManagement jsm = fixture.admin().jetStreamManagement();
        assertThat(jsm.getStreamInfo(dlq).getStreamState().getMsgCount()).as("forwarded once").isEqualTo(1);
        MessageInfo m = jsm.getMessage(dlq, 1);
        assertThat(m.getSubject()).isEqualTo("dlq.tbpk." + name + ".OrderPlaced");
        CloudEvent e = new NatsCloudEventsSdkReaderTest.NatsReader(m.getHeaders(), m.getData()).toEvent();
        assertThat(e.getId()).isEqualTo(poison.id().toString());
        assertThat(e.getSubject()).isEqualTo("a");
        assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"poison\":true}");
        assertThat(e.getExtension("dlqreason").toString()).contains("contract version not supported");
        assertThat(e.getExtension("dlqconsumer")).isEqualTo(consumer);
        assertThat(e.getExtension("dlqparkedat")).isNotNull();
        assertThat(Sql.count(fixture.dataSource(),
            "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = ? AND dead_letter = 'SENT'", consumer))
            .isEqualTo(1);
      }
    } finally {
      NatsStreams.delete(fixture.admin(), main);
      NatsStreams.delete(fixture.admin(), dlq);
    }
  }
}
