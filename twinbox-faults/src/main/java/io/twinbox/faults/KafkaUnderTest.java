package io.twinbox.faults;

import io.twinbox.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The testkit's Kafka broker (a child JVM this run owns, so it may be killed). No relay↔broker
 * proxy: a Kafka client reaches the broker at its advertised address after bootstrapping.
 */
public final class KafkaUnderTest implements BrokerUnderTest {
  private static final int PARTITIONS = 8;
  private final KafkaBroker broker;

  public KafkaUnderTest(KafkaBroker broker) {
    this.broker = broker;
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public Set<FaultKind> supported() {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    all.removeAll(FaultKind.LINK);
    return all;
  }

  @Override
  public Destination create(String name) {
    broker.createTopic(name, PARTITIONS);
    String bootstrap = broker.bootstrapServers();
    return new Destination() {
      @Override
      public String relaySpec(int linkPort) {
        return "kafka|" + bootstrap + "|" + name;
      }

      @Override
      public String consumerSpec() {
        return "kafka|" + bootstrap + "|" + name + "|faults-consumer";
      }

      @Override
      public String linkHost() {
        return null;
      }

      @Override
      public int linkPort() {
        return 0;
      }

      @Override
      public Tap.Read readAll(Duration timeout) {
        return Tap.readAll(bootstrap, name, timeout);
      }

      @Override
      public void injectPoison(int salt) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> k = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
          k.send(new ProducerRecord<>(name, ("poison-" + salt).getBytes(StandardCharsets.UTF_8),
              "{not json".getBytes(StandardCharsets.UTF_8))).get();
        } catch (Exception e) {
          throw new IllegalStateException("cannot inject a poison record", e);
        }
      }

      @Override
      public void close() {
        // Topics die with the broker's temporary directory.
      }
    };
  }

  @Override
  public void kill() {
    broker.kill();
  }

  @Override
  public void restart() {
    broker.restart();
  }

  @Override
  public boolean isRunning() {
    return broker.isRunning();
  }

  @Override
  public void close() {
    broker.close();
  }
}
