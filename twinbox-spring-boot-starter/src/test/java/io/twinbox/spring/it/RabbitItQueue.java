package io.twinbox.spring.it;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.testkit.LocalServers;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A fresh exchange and queue on the shared RabbitMQ (127.0.0.1:5672, guest/guest) for one test
 * class, and the starter properties that point the relay and the inbox listener at them; deleted on
 * close.
 */
final class RabbitItQueue implements AutoCloseable {
  private final Connection admin;
  private final RabbitTopology topology;

  private RabbitItQueue(Connection admin, RabbitTopology topology) {
    this.admin = admin;
    this.topology = topology;
  }

  static RabbitItQueue declare(String prefix) throws Exception {
    LocalServers.require("RabbitMQ", "127.0.0.1", 5672);
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    Connection admin = factory.newConnection("twinbox-" + prefix + "-admin");
    String name = prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    RabbitTopology topology = RabbitTopology.builder(name).queue(name + ".q").build();
    topology.declare(admin);
    return new RabbitItQueue(admin, topology);
  }

  /** The relay publishes to the exchange; the inbox listener consumes the queue as {@code consumer}. */
  List<String> properties(String consumer) {
    return List.of("twinbox.inbox.consumer=" + consumer, "twinbox.rabbitmq.host=127.0.0.1",
        "twinbox.rabbitmq.port=5672", "twinbox.rabbitmq.username=guest", "twinbox.rabbitmq.password=guest",
        "twinbox.rabbitmq.exchange=" + topology.exchange(), "twinbox.rabbitmq.consumer.queues=" + topology.queue());
  }

  @Override
  public void close() throws Exception {
    topology.delete(admin);
    admin.close();
  }
}
