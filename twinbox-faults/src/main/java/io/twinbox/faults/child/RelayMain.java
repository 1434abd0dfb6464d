package io.twinbox.faults.child;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A relay JVM of a fault run: outbox (through the fault proxy) to a Kafka topic, rows marked
 * {@code PUBLISHED} (not deleted) so that the checker can see them, every broker ack journaled.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <bootstrap> <topic> <node id> <lease ttl ms>
 * <journal file>}. Prints {@value #STARTED} once running, {@value #STATS} lines every 500 ms and
 * {@value #FINAL} on SIGTERM.
 */
public final class RelayMain {
  public static final String STARTED = "RELAY-STARTED";
  public static final String STATS = "RELAY-STATS";
  public static final String FINAL = "RELAY-FINAL";

  private RelayMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 8) {
      throw new IllegalArgumentException("usage: RelayMain <jdbc url> <user> <password> <bootstrap> <topic>"
          + " <node id> <lease ttl ms> <journal>");
    }
    HikariDataSource ds = Pools.open(args[0], args[1], args[2], "faults-relay-" + args[5], 6);
    JdbcStore store = JdbcStore.builder(ds).build();
    KafkaPublisher kafka = KafkaPublisher.builder(args[3]).topicRouter(TopicRouter.fixed(args[4]))
        .property("delivery.timeout.ms", 20_000).property("request.timeout.ms", 5_000).build();
    AckJournal journal = new AckJournal(kafka, Path.of(args[7]));
    Relay relay = Relay.builder(store, journal)
        .nodeId(args[5])
        .leaseTtl(Duration.ofMillis(Long.parseLong(args[6])))
        .publishTimeout(Duration.ofSeconds(25))
        .pollInterval(Duration.ofMillis(200))
        .batchSize(200)
        .workers(2)
        .completionMode(CompletionMode.MARK)
        .build();
    CountDownLatch stopped = new CountDownLatch(1);
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "relay-stats");
      t.setDaemon(true);
      return t;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      ticker.shutdownNow();
      relay.close();
      journal.close();
      ds.close();
      System.out.println(FINAL + " " + line(relay.stats()));
      System.out.flush();
      stopped.countDown();
    }, "relay-shutdown"));
    relay.start();
    System.out.println(STARTED + " " + relay.nodeId());
    ticker.scheduleAtFixedRate(() -> System.out.println(STATS + " " + line(relay.stats())),
        500, 500, TimeUnit.MILLISECONDS);
    stopped.await();
  }

  static String line(RelayStats s) {
    return "published=" + s.published() + " retried=" + s.retried() + " dead=" + s.dead()
        + " fenced=" + s.fenced() + " outages=" + s.outages() + " batches=" + s.batches();
  }
}
