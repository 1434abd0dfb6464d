package io.twinbox.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TcpProxy;
import io.twinbox.testkit.contract.TransportContract;
import io.twinbox.testkit.contract.TransportFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** RabbitMQ on 127.0.0.1:5672 (guest/guest) and a fresh PostgreSQL database, for the contract. */
final class RabbitFixture implements TransportFixture {
  static final String HOST = "127.0.0.1";
  static final int PORT = 5672;

  private final PostgresDatabase db;
  private final JdbcStore store;
  private final Connection admin;
  private final TcpProxy publishers = TcpProxy.start(HOST, PORT);
  private final List<RabbitTopology> created = new ArrayList<>();

  RabbitFixture() throws Exception {
    LocalServers.require("RabbitMQ", HOST, PORT);
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    admin = factory(PORT).newConnection("twinbox-test-admin");
  }

  static ConnectionFactory factory(int port) {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost(HOST);
    f.setPort(port);
    f.setConnectionTimeout(3_000);
    f.setHandshakeTimeout(3_000);
    return f;
  }

  /** Declares a topology and remembers it for deletion. */
  RabbitTopology declare(RabbitTopology t) throws Exception {
    t.declare(admin);
    created.add(t);
    return t;
  }

  Connection admin() {
    return admin;
  }

  @Override
  public String name() {
    return "RabbitMQ";
  }

  @Override
  public DataSource dataSource() {
    return db.dataSource();
  }

  @Override
  public InboxStore inboxStore() {
    return JdbcInboxStore.of(store);
  }

  @Override
  public OutboxStore outboxStore() {
    return store;
  }

  @Override
  public String createDestination(String name) {
    try {
      declare(RabbitTopology.builder("tb." + name).queue("tb." + name + ".q").build());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return name;
  }

  RabbitPublisher.Builder publisherBuilder() {
    return RabbitPublisher.builder(factory(publishers.port())).confirmTimeout(Duration.ofSeconds(10))
        .reconnectBackoff(Duration.ofMillis(200));
  }

  @Override
  public Transport publisher(String destination) {
    return publisherBuilder().router(RabbitRouter.fixed("tb." + destination)).build();
  }

  @Override
  public RunningConsumer startConsumer(String destination, Inbox inbox, InboxHandler handler, RetryPolicy retry) {
    TcpProxy proxy = TcpProxy.start(HOST, PORT);
    InboxConsumer c = RabbitInboxConsumer.builder(factory(proxy.port()), "tb." + destination + ".q")
        .inbox(inbox, dataSource()).handler(handler).retryPolicy(retry).reconnectBackoff(Duration.ofMillis(200))
        .build();
    c.start();
    return new RunningConsumer() {
      @Override
      public long processed() {
        return c.stats().processed();
      }

      @Override
      public long duplicates() {
        return c.stats().duplicates();
      }

      @Override
      public long parked() {
        return c.stats().parked();
      }

      @Override
      public void crash() {
        proxy.cut(); // the connection drops: unacknowledged deliveries go back to the queue
        close();
      }

      @Override
      public void close() {
        c.close();
        proxy.close();
      }
    };
  }

  @Override
  public List<Rejection> rejections(String destination) {
    try {
      declare(RabbitTopology.builder("tb." + destination + ".unbound").build()); // an exchange, no queue
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return List.of(
        new Rejection(publisherBuilder().router(RabbitRouter.fixed("tb." + destination + ".unbound")).build(),
            TransportContract.message("r-1", 1, "{}"), "unroutable"),
        new Rejection(publisherBuilder().router(RabbitRouter.fixed("tb." + destination + ".missing")).build(),
            TransportContract.message("r-2", 1, "{}"), "does not exist"),
        new Rejection(publisherBuilder().router(RabbitRouter.fixed("tb." + destination)).maxMessageBytes(4096).build(),
            TransportContract.message("r-3", 1, "\"" + "x".repeat(8_000) + "\""), "exceeds maxMessageBytes"));
  }

  @Override
  public MissingDestination missingDestination(String destination, String lostType) {
    String missing = "tb." + destination + ".never-declared";
    RabbitRouter to = RabbitRouter.fixed("tb." + destination);
    return new MissingDestination(publisherBuilder().router(m -> m.aggregateType().equals(lostType)
        ? new RabbitDestination(missing, m.type()) : to.route(m)).build(), missing);
  }

  @Override
  public boolean deduplicates() {
    return false;
  }

  @Override
  public boolean interruptBroker() {
    publishers.cut();
    return true;
  }

  @Override
  public void restoreBroker() {
    publishers.restore();
  }

  @Override
  public void close() {
    for (RabbitTopology t : created) {
      try {
        t.delete(admin);
      } catch (Exception e) {
        // Best effort.
      }
    }
    try {
      admin.close();
    } catch (Exception e) {
      // Best effort.
    }
    publishers.close();
    db.close();
  }
}
