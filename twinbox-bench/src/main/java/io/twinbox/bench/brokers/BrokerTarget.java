package io.twinbox.bench.brokers;

import com.rabbitmq.client.ConnectionFactory;
import io.nats.client.Nats;
import io.twinbox.bench.Topics;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.nats.NatsPublisher;
import io.twinbox.nats.NatsStreams;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.KafkaBroker;

/**
 * One broker of the issue-4 comparison: creates a fresh destination (topic, exchange + quorum
 * queue, stream), builds the library's publisher for it with its defaults, and removes the
 * destination afterwards. The shared RabbitMQ and NATS servers are never touched otherwise.
 */
public interface BrokerTarget {

  String name();

  /** Creates a fresh destination named after {@code tag} and returns a publisher routed to it. */
  Transport open(String tag) throws Exception;

  /** Deletes the destination of the last {@link #open}. */
  void cleanUp() throws Exception;

  /** Kafka: a testkit broker (KRaft, one node), a topic with {@code partitions} partitions. */
  static BrokerTarget kafka(KafkaBroker broker, int partitions) {
    return new BrokerTarget() {
      @Override
      public String name() {
        return "kafka";
      }

      @Override
      public Transport open(String tag) throws Exception {
        String topic = "bench-" + tag;
        Topics.createWarm(broker, topic, partitions);
        return KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(TopicRouter.fixed(topic)).build();
      }

      @Override
      public void cleanUp() {}
    };
  }

  /** RabbitMQ: a topic exchange and a durable quorum queue bound with {@code #}; publisher confirms. */
  static BrokerTarget rabbit(String uri) {
    return new BrokerTarget() {
      private RabbitTopology topology;

      @Override
      public String name() {
        return "rabbitmq";
      }

      @Override
      public Transport open(String tag) throws Exception {
        topology = RabbitTopology.builder("bench-" + tag).queue("bench-" + tag).deadLetter(false).build();
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(uri);
        try (com.rabbitmq.client.Connection c = f.newConnection("twinbox-bench-setup")) {
          topology.declare(c);
        }
        return RabbitPublisher.builder(uri).router(RabbitRouter.fixed(topology.exchange())).build();
      }

      @Override
      public void cleanUp() throws Exception {
        if (topology != null) {
          ConnectionFactory f = new ConnectionFactory();
          f.setUri(uri);
          try (com.rabbitmq.client.Connection c = f.newConnection("twinbox-bench-setup")) {
            topology.delete(c);
          }
        }
      }
    };
  }

  /** NATS JetStream: a file-backed stream (server defaults) capturing {@code bench-<tag>.>}. */
  static BrokerTarget nats(String url) {
    return new BrokerTarget() {
      private String stream;

      @Override
      public String name() {
        return "nats-jetstream";
      }

      @Override
      public Transport open(String tag) throws Exception {
        stream = ("BENCH_" + tag).replaceAll("[^A-Za-z0-9_-]", "_");
        String prefix = "bench-" + tag.replaceAll("[^A-Za-z0-9_-]", "-");
        try (io.nats.client.Connection c = Nats.connect(url)) {
          NatsStreams.ensure(c, stream, prefix + ".>");
        }
        return NatsPublisher.builder(url).subjectRouter(m -> prefix + ".orders").build();
      }

      @Override
      public void cleanUp() throws Exception {
        if (stream != null) {
          try (io.nats.client.Connection c = Nats.connect(url)) {
            NatsStreams.delete(c, stream);
          }
        }
      }
    };
  }
}
