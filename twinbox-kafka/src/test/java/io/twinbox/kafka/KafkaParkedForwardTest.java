package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import io.twinbox.testkit.contract.TransportContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Dead letters on the consumer side on Kafka and PostgreSQL: a message the handler refuses is
 * parked, then forwarded once to {@code <topic>.dlq} with its original id and the parked-message
 * extensions, read with the CloudEvents SDK's deserializer alone; the row stays parked, marked SENT.
 */
class KafkaParkedForwardTest {

  @Test
  void aParkedMessageIsForwardedOnceToTheDeadLetterTopic() throws Exception {
    KafkaBroker broker = KafkaBroker.shared();
    String topic = "tbpk-" + UUID.randomUUID().toString().substring(0, 8);
    broker.createTopic(topic, 1);
    broker.createTopic(topic + ".dlq", 1);
    OutboxMessage poison = TransportContract.message("a", 1, "{\"poison\":true}");
    OutboxMessage fine = TransportContract.message("b", 1, "{\"n\":1}");
    String consumer = "forward-" + topic;
    try (PostgresDatabase db = PostgresDatabase.create();
        KafkaPublisher p = KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(TopicRouter.fixed(topic))
            .build()) {
      JdbcStore store = JdbcStore.builder(db.dataSource()).build();
      store.migrate();
      assertThat(p.send(poison).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.send(fine).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), consumer).build();
      try (InboxConsumer c = KafkaInboxConsumer.builder(broker.bootstrapServers(), consumer).topics(topic)
          .inbox(inbox, db.dataSource()).handler((conn, m) -> {
            if (m.payload().contains("poison")) {
              throw new UnprocessableMessageException("contract version not supported");
            }
          }).deadLetters(p.deadLetters().orElseThrow()).build()) {
        c.start();
        await().atMost(Duration.ofSeconds(90)).until(() -> c.forwarded() == 1 && c.stats().processed() == 1);
        Thread.sleep(1_500);
        List<CloudEvent> got = new ArrayList<>();
        try (KafkaConsumer<String, CloudEvent> k = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false"), new StringDeserializer(), new CloudEventDeserializer())) {
          TopicPartition tp = new TopicPartition(topic + ".dlq", 0);
          k.assign(List.of(tp));
          k.seekToBeginning(List.of(tp));
          long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
          while (System.nanoTime() - end < 0 && k.position(tp) < k.endOffsets(List.of(tp)).get(tp) || got.isEmpty()
              && System.nanoTime() - end < 0) {
            for (ConsumerRecord<String, CloudEvent> r : k.poll(Duration.ofMillis(200))) {
              got.add(r.value());
            }
          }
        }
        assertThat(got).as("forwarded once").hasSize(1);
        CloudEvent e = got.get(0);
        assertThat(e.getId()).isEqualTo(poison.id().toString());
        assertThat(e.getSubject()).isEqualTo("a");
        assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"poison\":true}");
        assertThat(e.getExtension("dlqreason").toString()).contains("contract version not supported");
        assertThat(e.getExtension("dlqconsumer")).isEqualTo(consumer);
        assertThat(e.getExtension("dlqparkedat")).isNotNull();
        assertThat(Sql.count(db.dataSource(),
            "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = ? AND dead_letter = 'SENT'", consumer))
            .isEqualTo(1);
      }
    }
  }
}
