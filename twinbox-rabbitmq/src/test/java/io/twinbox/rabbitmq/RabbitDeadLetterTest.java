package io.twinbox.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.contract.DeadLetterContract;
import io.twinbox.testkit.contract.DeadLetterFixture;
import io.twinbox.testkit.contract.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Dead letters on RabbitMQ (5672): the poison route is an exchange nobody declared ({@code
 * <ex>.missing}, REJECTED), its dead letters go to the default name {@code <ex>.missing.dlq}; the
 * outage cuts a proxy in front of a second publisher that carries only the dead letters.
 */
class RabbitDeadLetterTest extends DeadLetterContract {
  @Override
  protected DeadLetterFixture createFixture() {
    try {
      return new Fixture(new RabbitFixture());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Fixture implements DeadLetterFixture {
    private final RabbitFixture rabbit;
    private final TcpProxy deadLetterProxy = TcpProxy.start(RabbitFixture.HOST, RabbitFixture.PORT);
    private final List<RabbitPublisher> open = new ArrayList<>();
    private final Map<String, List<SdkEvent>> read = new HashMap<>();

    Fixture(RabbitFixture rabbit) {
      this.rabbit = rabbit;
    }

    @Override
    public String name() {
      return "RabbitMQ";
    }

    @Override
    public DataSource dataSource() {
      return rabbit.dataSource();
    }

    @Override
    public OutboxStore store() {
      return rabbit.outboxStore();
    }

    @Override
    public String create(String name) {
      String ex = "tbdl." + name;
      try {
        rabbit.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
        rabbit.declare(RabbitTopology.builder(ex + ".missing.dlq").queue(ex + ".missing.dlq.q").build());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return ex;
    }

    private static RabbitRouter router(String ex) {
      return m -> new RabbitDestination(m.payload().contains("poison") ? ex + ".missing" : ex, m.type());
    }

    @Override
    public Transport publisher(String ex) {
      return RabbitPublisher.builder(RabbitFixture.factory(RabbitFixture.PORT)).router(router(ex))
          .confirmTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public DeadLetterTransport deadLettersThroughProxy(String ex) {
      RabbitPublisher p = RabbitPublisher.builder(RabbitFixture.factory(deadLetterProxy.port())).router(router(ex))
          .confirmTimeout(Duration.ofSeconds(3)).reconnectBackoff(Duration.ofMillis(200)).build();
      open.add(p);
      return p.deadLetters().orElseThrow();
    }

    @Override
    public void cutDeadLetters() {
      deadLetterProxy.cut();
    }

    @Override
    public void restoreDeadLetters() {
      deadLetterProxy.restore();
    }

    @Override
    public List<SdkEvent> deadLetters(String ex, int atLeast, Duration wait) {
      List<SdkEvent> got = read.computeIfAbsent(ex, k -> new ArrayList<>());
      long end = System.nanoTime() + wait.toNanos();
      try (Channel ch = rabbit.admin().createChannel()) {
        while (got.size() < atLeast && System.nanoTime() - end < 0) {
          GetResponse r = ch.basicGet(ex + ".missing.dlq.q", true);
          if (r == null) {
            Thread.sleep(100);
            continue;
          }
          CloudEvent e = new RabbitCloudEventsSdkReaderTest.AmqpReader(r.getProps(), r.getBody()).toEvent();
          Map<String, String> ext = new TreeMap<>();
          e.getExtensionNames().forEach(n -> ext.put(n, String.valueOf(e.getExtension(n))));
          got.add(new SdkEvent(e.getId(), e.getType(), e.getSource().toString(), e.getSubject(), ext,
              new String(e.getData().toBytes(), StandardCharsets.UTF_8)));
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return List.copyOf(got);
    }

    @Override
    public long delivered(String ex) {
      try (Channel ch = rabbit.admin().createChannel()) {
        return ch.messageCount(ex + ".q");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      open.forEach(RabbitPublisher::close);
      deadLetterProxy.close();
      rabbit.close();
    }
  }
}
