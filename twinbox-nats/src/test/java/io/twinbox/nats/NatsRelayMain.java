package io.twinbox.nats;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * A relay JVM for {@link NatsRelayCrashTest}: PostgreSQL outbox to NATS JetStream. Its transport
 * prints {@value #ACKED} and the message id as soon as JetStream acknowledges a publish, and then
 * holds the answer back from the relay, so the relay can never mark the row: the parent's
 * {@code kill -9} lands exactly between publish ack and mark.
 *
 * <p>Arguments: {@code <jdbc url> <db user> <db password> <nats url> <subject prefix> <lease ttl ms>}.
 */
public final class NatsRelayMain {
  static final String STARTED = "RELAY-STARTED";
  static final String ACKED = "RELAY-ACKED";

  private NatsRelayMain() {}

  public static void main(String[] args) throws InterruptedException {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(args[0]);
    hc.setUsername(args[1]);
    hc.setPassword(args[2]);
    hc.setMaximumPoolSize(4);
    HikariDataSource ds = new HikariDataSource(hc);
    String prefix = args[4];
    NatsPublisher nats = NatsPublisher.builder(args[3]).subjectRouter(m -> prefix + "." + m.type()).build();
    Transport holdingBack = new Transport() {
      @Override
      public String name() {
        return "nats-held";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
        return nats.send(m).thenCompose(o -> {
          if (o.kind() == PublishOutcome.Kind.ACKED) {
            System.out.println(ACKED + " " + m.id());
            System.out.flush();
          }
          return new CompletableFuture<>(); // the relay never learns of the ack
        });
      }

      @Override
      public void close() {
        nats.close();
      }
    };
    Relay relay = Relay.builder(JdbcStore.builder(ds).build(), holdingBack).nodeId("doomed")
        .leaseTtl(Duration.ofMillis(Long.parseLong(args[5]))).pollInterval(Duration.ofMillis(100))
        .publishTimeout(Duration.ofMinutes(5)).build();
    relay.start();
    System.out.println(STARTED);
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
