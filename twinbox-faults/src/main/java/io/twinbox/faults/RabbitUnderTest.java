package io.twinbox.faults;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.PrivateRabbitNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A RabbitMQ node that the run owns (testkit {@link PrivateRabbitNode}: the installed server as node
 * {@code tb<port>@localhost}, on ports and data of its own), so that the nemesis may {@code kill -9}
 * it and start it again (C1) without touching the machine's shared node on 5672. Every RabbitMQ row
 * uses it, not only those with {@link FaultKind#BROKER_KILL}, as every Kafka row uses the
 * testkit's broker: one node for the whole matrix (guest/guest, default settings like the shared
 * node's), and no row depends on what else runs on the shared one. The relays reach it through a
 * fault proxy (reset, blackhole, latency, lost confirms), the consumers and the tap directly; all
 * of them reconnect after a kill. Each run gets its own topic exchange, a quorum queue for the
 * consumers and a classic tap queue bound to the same exchange with {@code #}, all durable (the
 * messages are persistent, so a publisher confirm means both queues hold it on disk), read after
 * the drain; all are deleted at the end.
 */
public final class RabbitUnderTest implements BrokerUnderTest {
  public static final String HOST = "127.0.0.1";
  private final PrivateRabbitNode node;
  private final int port;
  private final Connection admin;

  /** Takes {@code node} over: {@link #close()} closes it. */
  public RabbitUnderTest(PrivateRabbitNode node) {
    this.node = node;
    this.port = node.port();
    try {
      admin = factory(port).newConnection("twinbox-faults-admin");
    } catch (Exception e) {
      node.close();
      throw new IllegalStateException("cannot connect to " + node, e);
    }
  }

  /** A factory for the node on {@code port}; its connections recover by themselves after a restart. */
  static ConnectionFactory factory(int port) {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost(HOST);
    f.setPort(port);
    f.setConnectionTimeout(5_000);
    f.setAutomaticRecoveryEnabled(true);
    f.setNetworkRecoveryInterval(500);
    return f;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  /** Everything, the broker kill included: the node is the run's own. */
  @Override
  public Set<FaultKind> supported() {
    // C5 (a permanent rejection) is played on Kafka only so far; D7's hang (45 s) is shorter than the
    // server's consumer_timeout (30 min): nothing would be redelivered.
    return EnumSet.complementOf(EnumSet.of(FaultKind.BROKER_REJECTS, FaultKind.HANGING_HANDLER));
  }

  @Override
  public void kill() {
    node.kill();
  }

  /** Starts the node again on the same ports and data; returns when it accepts AMQP connections. */
  @Override
  public void restart() {
    node.restart();
  }

  @Override
  public boolean isRunning() {
    return node.isRunning();
  }

  @Override
  public Destination create(String name) {
    String exchange = "tb." + name;
    String queue = exchange + ".q";
    String tap = exchange + ".tap";
    RabbitTopology topology = RabbitTopology.builder(exchange).queue(queue).build();
    try {
      topology.declare(admin);
      try (Channel ch = admin.createChannel()) {
        ch.queueDeclare(tap, true, false, false, null);
        ch.queueBind(tap, exchange, "#");
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot declare " + exchange, e);
    }
    return new Destination() {
      @Override
      public String relaySpec(int linkPort) {
        return "rabbitmq|" + HOST + "|" + linkPort + "|" + exchange;
      }

      @Override
      public String consumerSpec() {
        return "rabbitmq|" + HOST + "|" + port + "|" + queue;
      }

      @Override
      public String linkHost() {
        return HOST;
      }

      @Override
      public int linkPort() {
        return port;
      }

      @Override
      public Tap.Read readAll(Duration timeout) {
        List<Delivery> out = new ArrayList<>();
        int foreign = 0;
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Channel ch = admin.createChannel()) {
          long index = 0;
          for (GetResponse r = ch.basicGet(tap, true); r != null; r = ch.basicGet(tap, true)) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("could not read " + tap + " in " + timeout);
            }
            Delivery d = toDelivery(tap, index++, r.getProps().getHeaders());
            if (d == null) {
              foreign++;
            } else {
              out.add(d);
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException("cannot read the tap queue " + tap, e);
        }
        return new Tap.Read(out, foreign);
      }

      @Override
      public void injectPoison(int salt) {
        try (Channel ch = admin.createChannel()) {
          ch.basicPublish(exchange, "Garbage", null, ("{not json " + salt).getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
          throw new IllegalStateException("cannot inject a poison message", e);
        }
      }

      @Override
      public void close() {
        try (Channel ch = admin.createChannel()) {
          ch.queueDelete(tap);
          topology.delete(admin);
        } catch (Exception e) {
          // Best effort; names are unique per run and the data dies with the node.
        }
      }
    };
  }

  /** A Twinbox event from its AMQP headers, or null when it is none (no id). */
  static Delivery toDelivery(String queue, long index, Map<String, Object> headers) {
    if (headers == null || headers.get("cloudEvents:id") == null) {
      return null;
    }
    String id = String.valueOf(headers.get("cloudEvents:id"));
    Object subject = headers.get("cloudEvents:subject");
    Object type = headers.get("cloudEvents:aggregatetype");
    Object sequence = headers.get("cloudEvents:sequence");
    try {
      return new Delivery(queue, 0, index, subject == null ? null : subject.toString(), UUID.fromString(id),
          type == null ? null : type.toString(), subject == null ? null : subject.toString(),
          sequence == null ? 0 : Long.parseLong(sequence.toString()));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Closes the admin connection and the node (its data is deleted). */
  @Override
  public void close() {
    try {
      admin.close();
    } catch (Exception e) {
      // Closing anyway.
    } finally {
      node.close();
    }
  }
}
