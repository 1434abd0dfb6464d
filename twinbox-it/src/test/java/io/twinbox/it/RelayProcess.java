package io.twinbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A relay in its own JVM, as a sidecar would run it: PostgreSQL outbox to one Kafka topic.
 * Started by {@link RelayProcesses} through the testkit's {@code ChildProcess}.
 *
 * <p>Arguments: {@code <jdbc url> <db user> <db password> <bootstrap servers> <topic> <node id>
 * <lease ttl ms>}. A shutdown hook closes the relay gracefully on SIGTERM and prints its final
 * {@link RelayStats} as a line starting with {@value #FINAL}; every 250 ms a line starting with
 * {@value #STATS} shows the running counters. {@code kill -9} prints nothing, as in production.
 */
public final class RelayProcess {
  static final String STARTED = "RELAY-STARTED";
  static final String STATS = "RELAY-STATS";
  static final String FINAL = "RELAY-FINAL";

  private RelayProcess() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 7) {
      throw new IllegalArgumentException(
          "usage: RelayProcess <jdbc url> <user> <password> <bootstrap> <topic> <node id> <lease ttl ms>");
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(args[0]);
    hc.setUsername(args[1]);
    hc.setPassword(args[2]);
    hc.setMaximumPoolSize(6);
    hc.setPoolName("relay-" + args[5]);
    HikariDataSource ds = new HikariDataSource(hc);
    JdbcStore store = JdbcStore.builder(ds).build();
    KafkaPublisher kafka = KafkaPublisher.builder(args[3]).topicRouter(TopicRouter.fixed(args[4])).build();
    Relay relay = Relay.builder(store, kafka)
        .nodeId(args[5])
        .leaseTtl(Duration.ofMillis(Long.parseLong(args[6])))
        .pollInterval(Duration.ofMillis(200))
        .batchSize(200)
        .workers(2)
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
      kafka.close();
      ds.close();
      System.out.println(FINAL + " " + line(relay.stats()));
      System.out.flush();
      stopped.countDown();
    }, "relay-shutdown"));

    relay.start();
    System.out.println(STARTED + " " + relay.nodeId());
    ticker.scheduleAtFixedRate(() -> System.out.println(STATS + " " + line(relay.stats())),
        250, 250, TimeUnit.MILLISECONDS);
    stopped.await();
  }

  /** {@code published=.. retried=.. dead=.. fenced=.. outages=.. batches=.. partitions=..}. */
  static String line(RelayStats s) {
    return "published=" + s.published() + " retried=" + s.retried() + " dead=" + s.dead()
        + " fenced=" + s.fenced() + " outages=" + s.outages() + " batches=" + s.batches()
        + " partitions=" + s.partitions();
  }
}
