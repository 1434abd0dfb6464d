package io.twinbox.faults;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.testkit.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The machine's shared RabbitMQ on 127.0.0.1:5672 (guest/guest). It is never killed; instead the
 * relays reach it through a fault proxy (reset, blackhole, latency, lost confirms). Each run gets
 * its own topic exchange, a quorum queue for the consumers and a classic tap queue bound to the same
 * exchange with {@code #}, read after the drain; all are deleted at the end.
 */
public final class RabbitUnderTest implements BrokerUnderTest {
  public static final String HOST = "127.0.0.1";
  public static final int PORT = 5672;
  private final Connection admin;

  public RabbitUnderTest() {
    try {
      admin = factory().newConnection("twinbox-faults-admin");
    } catch (Exception e) {
      throw new IllegalStateException("cannot connect to RabbitMQ on " + HOST + ":" + PORT, e);
    }
  }

  static ConnectionFactory factory() {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost(HOST);
    f.setPort(PORT);
    f.setConnectionTimeout(5_000);
    return f;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public Set<FaultKind> supported() {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    all.remove(FaultKind.BROKER_KILL);
    return all;
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
        return "rabbitmq|" + HOST + "|" + PORT + "|" + queue;
      }

      @Override
      public String linkHost() {
        return HOST;
      }

      @Override
      public int linkPort() {
        return PORT;
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
          // Best effort on a shared server; names are unique per run.
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

  @Override
  public void close() {
    try {
      admin.close();
    } catch (Exception e) {
      // Closing anyway.
    }
  }
}
