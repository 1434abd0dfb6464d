package io.twinbox.bench.inbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import io.twinbox.InboxConsumer;
import io.twinbox.rabbitmq.RabbitInboxConsumer;
import io.twinbox.rabbitmq.RabbitTopology;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * RabbitMQ for the inbox scenario: per measurement a topic exchange and a durable quorum queue
 * ({@link RabbitTopology}, no dead-letter queue), filled with persistent messages under publisher
 * confirms, the CloudEvents AMQP binding's {@code cloudEvents:} headers written by hand. The
 * baseline is a plain {@code basicConsume} with manual acks and the library's default prefetch, one
 * {@code basicAck(multiple)} per chunk after the database commit.
 */
final class RabbitFeed implements BrokerFeed {
  static final int PREFETCH = io.twinbox.rabbitmq.RabbitInboxConsumer.Builder.PREFETCH.defaultValue();

  private final String uri;
  private RabbitTopology topology;

  RabbitFeed(String uri) {
    this.uri = uri;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public String libraryDescription() {
    return "RabbitInboxConsumer.builder(uri, quorum queue)";
  }

  @Override
  public String rawDescription() {
    return "plain RabbitMQ basicConsume (prefetch " + PREFETCH + ", manual basicAck multiple after the DB commit)";
  }

  private Connection connect(String name) throws Exception {
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(uri);
    return f.newConnection(name);
  }

  @Override
  public void fill(String tag, List<InboxBench.Msg> msgs) throws Exception {
    topology = RabbitTopology.builder(tag).queue(tag).deadLetter(false).build();
    long t0 = System.nanoTime();
    try (Connection c = connect("twinbox-bench-fill"); Channel ch = c.createChannel()) {
      topology.declare(ch);
      ch.confirmSelect();
      for (InboxBench.Msg m : msgs) {
        String subject = "acct-" + m.account();
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("cloudEvents:specversion", "1.0");
        h.put("cloudEvents:id", m.id());
        h.put("cloudEvents:source", "/bench/payments");
        h.put("cloudEvents:type", "PaymentReceived");
        h.put("cloudEvents:subject", subject);
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().contentType("application/json")
            .deliveryMode(2).messageId(m.id()).headers(h).build();
        ch.basicPublish(topology.exchange(), subject, props, m.payload().getBytes(StandardCharsets.UTF_8));
      }
      ch.waitForConfirmsOrDie(300_000);
    }
    System.out.printf("  published %,d messages to RabbitMQ queue %s in %.1f s%n", msgs.size(), tag,
        (System.nanoTime() - t0) / 1e9);
  }

  @Override
  public InboxConsumer.Builder<?> library(String tag) {
    return RabbitInboxConsumer.builder(uri, tag);
  }

  @Override
  public Raw raw(String tag, int batch) throws Exception {
    Connection c = connect("twinbox-bench-raw");
    Channel ch = c.createChannel();
    ch.basicQos(PREFETCH);
    BlockingQueue<Delivery> q = new LinkedBlockingQueue<>();
    ch.basicConsume(tag, false, "twinbox-bench-raw", (consumerTag, d) -> q.add(d), consumerTag -> {});
    return new Raw() {
      private long lastTag = -1;

      @Override
      public List<InboxBench.Msg> next() throws Exception {
        List<InboxBench.Msg> out = new ArrayList<>(batch);
        Delivery d = q.poll(200, TimeUnit.MILLISECONDS);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        while (d != null) {
          Map<String, Object> h = d.getProperties().getHeaders();
          out.add(new InboxBench.Msg(h.get("cloudEvents:id").toString(),
              Integer.parseInt(h.get("cloudEvents:subject").toString().substring(5)),
              new String(d.getBody(), StandardCharsets.UTF_8)));
          lastTag = d.getEnvelope().getDeliveryTag();
          long left = deadline - System.nanoTime();
          d = out.size() < batch && left > 0 ? q.poll(left, TimeUnit.NANOSECONDS) : null;
        }
        return out;
      }

      @Override
      public void settle() throws Exception {
        if (lastTag >= 0) {
          ch.basicAck(lastTag, true);
        }
      }

      @Override
      public void close() throws Exception {
        c.close();
      }
    };
  }

  @Override
  public void cleanUp() throws Exception {
    if (topology != null) {
      try (Connection c = connect("twinbox-bench-setup")) {
        topology.delete(c);
      }
      topology = null;
    }
  }
}
