package io.twinbox.nats;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
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
import java.util.Locale;
import javax.sql.DataSource;

/** NATS JetStream on 127.0.0.1:4222 and a fresh PostgreSQL database, for the contract. */
final class NatsFixture implements TransportFixture {
  static final String HOST = "127.0.0.1";
  static final int PORT = 4222;
  /** A stream limit below the server's max_payload (1 MiB), to reach API error 10054. */
  static final int STREAM_MAX_MSG_SIZE = 64 * 1024;

  private final PostgresDatabase db;
  private final JdbcStore store;
  private final Connection admin;
  private final TcpProxy publishers = TcpProxy.start(HOST, PORT);
  private final List<String> streams = new ArrayList<>();

  NatsFixture() throws Exception {
    LocalServers.require("NATS", HOST, PORT);
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    admin = Nats.connect("nats://" + HOST + ":" + PORT);
  }

  static String url(int port) {
    return "nats://" + HOST + ":" + port;
  }

  static String streamName(String destination) {
    return "TB_" + destination.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
  }

  Connection admin() {
    return admin;
  }

  JdbcStore store() {
    return store;
  }

  PostgresDatabase db() {
    return db;
  }

  @Override
  public String name() {
    return "NATS JetStream";
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
    String stream = streamName(name);
    NatsStreams.ensure(admin, StreamConfiguration.builder().name(stream).subjects("tb." + name + ".>")
        .storageType(StorageType.File).maximumMessageSize(STREAM_MAX_MSG_SIZE)
        .duplicateWindow(NatsStreams.DEFAULT_DUPLICATE_WINDOW).build());
    streams.add(stream);
    return name;
  }

  NatsPublisher.Builder publisherBuilder() {
    return NatsPublisher.builder(url(publishers.port())).publishTimeout(Duration.ofSeconds(3));
  }

  @Override
  public Transport publisher(String destination) {
    return publisherBuilder().subjectRouter(m -> "tb." + destination + "." + m.type()).build();
  }

  @Override
  public RunningConsumer startConsumer(String destination, Inbox inbox, InboxHandler handler, RetryPolicy retry) {
    TcpProxy proxy = TcpProxy.start(HOST, PORT);
    InboxConsumer c = NatsInboxConsumer.builder(url(proxy.port()), streamName(destination), inbox.consumer())
        .inbox(inbox, dataSource()).handler(handler).retryPolicy(retry).ackWait(Duration.ofSeconds(4)).build();
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
        proxy.cut(); // acks are lost; the server redelivers after ackWait
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
    return List.of(
        new Rejection(publisherBuilder().subjectRouter(m -> "tb-nostream." + destination).build(),
            TransportContract.message("r-1", 1, "{}"), "no stream"),
        new Rejection(publisher(destination),
            TransportContract.message("r-2", 1, "\"" + "x".repeat(STREAM_MAX_MSG_SIZE) + "\""), "10054"),
        new Rejection(publisher(destination),
            TransportContract.message("r-3", 1, "\"" + "x".repeat(1_100_000) + "\""), "payload size exceed"));
  }

  @Override
  public MissingDestination missingDestination(String destination, String lostType) {
    String missing = "tb-nostream." + destination;
    return new MissingDestination(publisherBuilder().subjectRouter(m -> m.aggregateType().equals(lostType)
        ? missing + "." + m.type() : "tb." + destination + "." + m.type()).build(), missing);
  }

  @Override
  public boolean deduplicates() {
    return true;
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
    for (String s : streams) {
      try {
        NatsStreams.delete(admin, s);
      } catch (RuntimeException e) {
        // Best effort.
      }
    }
    try {
      admin.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    publishers.close();
    db.close();
  }
}
