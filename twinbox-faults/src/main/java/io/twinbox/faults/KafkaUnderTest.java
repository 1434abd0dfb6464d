package io.twinbox.faults;

import io.twinbox.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The testkit's Kafka broker (a child JVM this run owns, so it may be killed). The relays reach it
 * through the run's relay↔broker fault proxy: they bootstrap from the proxy, which listens on the
 * port the broker's {@code LINK} listener advertises ({@link KafkaBroker#linkProxyPort()}), so every
 * connection a relay's producer opens goes through the proxy too. Consumers, the tap and the
 * poison injector use the plain listener.
 */
public final class KafkaUnderTest implements BrokerUnderTest {
  private static final int PARTITIONS = 8;
  private static final String MAX_MESSAGE_BYTES = "max.message.bytes";
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
    // D7's hang (45 s) is shorter than max.poll.interval.ms (300 s): nothing would be redelivered.
    return EnumSet.complementOf(EnumSet.of(FaultKind.HANGING_HANDLER));
  }

  @Override
  public Destination create(String name) {
    broker.createTopic(name, PARTITIONS);
    String bootstrap = broker.bootstrapServers();
    return new Destination() {
      @Override
      public String relaySpec(int linkPort) {
        return "kafka|127.0.0.1:" + linkPort + "|" + name;
      }

      @Override
      public String consumerSpec() {
        return "kafka|" + bootstrap + "|" + name + "|faults-consumer";
      }

      @Override
      public String linkHost() {
        return "127.0.0.1";
      }

      @Override
      public int linkPort() {
        return broker.linkPort();
      }

      @Override
      public int linkProxyPort() {
        return broker.linkProxyPort();
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
      public void limitMessageBytes(int bytes) {
        topicConfig(new AlterConfigOp(new ConfigEntry(MAX_MESSAGE_BYTES, Integer.toString(bytes)),
            AlterConfigOp.OpType.SET));
      }

      @Override
      public void restoreMessageBytes() {
        topicConfig(new AlterConfigOp(new ConfigEntry(MAX_MESSAGE_BYTES, null), AlterConfigOp.OpType.DELETE));
      }

      private void topicConfig(AlterConfigOp op) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, name);
        try (Admin admin = Admin.create(p)) {
          admin.incrementalAlterConfigs(Map.of(topic, List.of(op))).all().get(30, TimeUnit.SECONDS);
          // A dynamic topic config reaches the log a moment later: wait until the broker reports it.
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (true) {
            Config config = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            ConfigEntry entry = config.get(MAX_MESSAGE_BYTES);
            boolean applied = op.opType() == AlterConfigOp.OpType.DELETE
                ? entry.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                : op.configEntry().value().equals(entry.value());
            if (applied || System.nanoTime() > deadline) {
              break;
            }
            Thread.sleep(100);
          }
          Thread.sleep(500);
        } catch (Exception e) {
          throw new IllegalStateException("cannot change " + MAX_MESSAGE_BYTES + " of " + name, e);
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
