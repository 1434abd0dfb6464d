package io.twinbox.kafka;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.DeadLetterContract;
import io.twinbox.testkit.contract.DeadLetterFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Dead letters on Kafka (a private broker that creates no topics): the poison route is a topic that
 * does not exist (REJECTED), its dead letters go to the default {@code <topic>.dlq}, read back with
 * the CloudEvents SDK's Kafka deserializer alone. The outage half runs the dead letters on a second
 * private broker, stopped (SIGTERM) for the outage and restarted on its ports and data: a proxy cannot
 * sit in front of one Kafka broker (clients reconnect to the advertised listener).
 */
class KafkaDeadLetterTest extends DeadLetterContract {
  @Override
  protected DeadLetterFixture createFixture() {
    return new Fixture();
  }

  private static final class Fixture implements DeadLetterFixture {
    private final KafkaBroker broker = KafkaBroker.startWithoutAutoCreate();
    private final KafkaBroker deadLetterBroker = KafkaBroker.startWithoutAutoCreate();
    private final List<KafkaPublisher> open = new ArrayList<>();
    private final PostgresDatabase db = PostgresDatabase.create();
    private final JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    private final Map<String, List<SdkEvent>> read = new HashMap<>();

    Fixture() {
      store.migrate();
    }

    @Override
    public String name() {
      return "Kafka";
    }

    @Override
    public DataSource dataSource() {
      return db.dataSource();
    }

    @Override
    public OutboxStore store() {
      return store;
    }

    @Override
    public String create(String name) {
      broker.createTopic("tb-" + name, 1);
      broker.createTopic("tb-" + name + "-missing.dlq", 1);
      deadLetterBroker.createTopic("tb-" + name + "-missing.dlq", 1);
      return "tb-" + name;
    }

    @Override
    public Transport publisher(String topic) {
      return publisher(broker, topic);
    }

    private static KafkaPublisher publisher(KafkaBroker on, String topic) {
      return KafkaPublisher.builder(on.bootstrapServers())
          .topicRouter(m -> m.payload().contains("poison") ? topic + "-missing" : topic)
          .property("delivery.timeout.ms", 5_000).property("max.block.ms", 2_000).build();
    }

    @Override
    public DeadLetterTransport deadLettersThroughProxy(String topic) {
      KafkaPublisher p = publisher(deadLetterBroker, topic);
      open.add(p);
      return p.deadLetters().orElseThrow();
    }

    @Override
    public void cutDeadLetters() {
      deadLetterBroker.stop();
    }

    @Override
    public void restoreDeadLetters() {
      deadLetterBroker.restart();
    }

    private KafkaConsumer<String, CloudEvent> consumer(KafkaBroker on) {
      return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, on.bootstrapServers(),
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"), new StringDeserializer(), new CloudEventDeserializer());
    }

    @Override
    public List<SdkEvent> deadLetters(String topic, int atLeast, Duration wait) {
      List<SdkEvent> got = new ArrayList<>();
      long end = System.nanoTime() + wait.toNanos();
      try (KafkaConsumer<String, CloudEvent> c = consumer(broker);
          KafkaConsumer<String, CloudEvent> d = consumer(deadLetterBroker)) {
        TopicPartition tp = new TopicPartition(topic + "-missing.dlq", 0);
        for (KafkaConsumer<String, CloudEvent> k : List.of(c, d)) {
          k.assign(List.of(tp));
          k.seekToBeginning(List.of(tp));
        }
        do { // the main broker's dead letters, and those of the dead-letter broker (the outage test)
          for (KafkaConsumer<String, CloudEvent> k : List.of(c, d)) {
            for (ConsumerRecord<String, CloudEvent> r : k.poll(Duration.ofMillis(100))) {
              got.add(sdk(r.value()));
            }
          }
        } while (got.size() < atLeast && System.nanoTime() - end < 0);
      }
      read.put(topic, got);
      return List.copyOf(got);
    }

    private static SdkEvent sdk(CloudEvent e) {
      Map<String, String> ext = new TreeMap<>();
      e.getExtensionNames().forEach(n -> ext.put(n, String.valueOf(e.getExtension(n))));
      return new SdkEvent(e.getId(), e.getType(), e.getSource().toString(), e.getSubject(), ext,
          new String(e.getData().toBytes(), StandardCharsets.UTF_8));
    }

    @Override
    public long delivered(String topic) {
      try (KafkaConsumer<String, CloudEvent> c = consumer(broker)) {
        TopicPartition tp = new TopicPartition(topic, 0);
        return c.endOffsets(List.of(tp)).get(tp);
      }
    }

    @Override
    public void close() {
      open.forEach(KafkaPublisher::close);
      db.close();
      broker.close();
      deadLetterBroker.close();
    }
  }
}
