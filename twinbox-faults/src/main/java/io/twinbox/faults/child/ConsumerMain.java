package io.twinbox.faults.child;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Inbox;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A consumer JVM of a fault run: the Kafka topic through the inbox into the consumer's database,
 * where the business effect is a counter per message id ({@code effect.n}): any value above 1 is
 * a duplicate effect. Events of type {@value #POISON} are unprocessable and must be parked.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <bootstrap> <topic> <group> <name>}.
 */
public final class ConsumerMain {
  public static final String STARTED = "CONSUMER-STARTED";
  public static final String STATS = "CONSUMER-STATS";
  public static final String POISON = "Poison";

  private ConsumerMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 7) {
      throw new IllegalArgumentException("usage: ConsumerMain <jdbc url> <user> <password> <bootstrap>"
          + " <topic> <group> <name>");
    }
    HikariDataSource ds = Pools.open(args[0], args[1], args[2], "faults-consumer-" + args[6], 4);
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(ds), args[5]).build();
    KafkaInboxConsumer consumer = KafkaInboxConsumer.builder(args[3], args[5])
        .topics(args[4])
        .inbox(inbox, ds)
        .property("client.id", args[6])
        // A paused consumer loses its partitions within seconds, so pauses cause redeliveries.
        .property("session.timeout.ms", 6_000)
        .property("heartbeat.interval.ms", 1_000)
        .handler((c, m) -> {
          if (POISON.equals(m.type())) {
            throw new UnprocessableMessageException("poison event " + m.id());
          }
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO effect (message_id, aggregate_id,"
              + " sequence, n) VALUES (?, ?, ?, 1) ON CONFLICT (message_id) DO UPDATE SET n = effect.n + 1")) {
            ps.setObject(1, UUID.fromString(m.id()));
            ps.setString(2, m.aggregateId());
            ps.setLong(3, m.sequence());
            ps.executeUpdate();
          }
        })
        .build();
    CountDownLatch stopped = new CountDownLatch(1);
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "consumer-stats");
      t.setDaemon(true);
      return t;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      ticker.shutdownNow();
      consumer.close();
      ds.close();
      System.out.println(STATS + " " + consumer.stats());
      System.out.flush();
      stopped.countDown();
    }, "consumer-shutdown"));
    consumer.start();
    System.out.println(STARTED + " " + args[6]);
    ticker.scheduleAtFixedRate(() -> System.out.println(STATS + " " + consumer.stats()),
        1, 1, TimeUnit.SECONDS);
    stopped.await();
  }
}
