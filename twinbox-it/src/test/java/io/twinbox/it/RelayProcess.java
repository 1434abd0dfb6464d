package io.twinbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
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
  /** System property: milliseconds by which every broker ack reaches the relay late (0 or absent: none). */
  static final String ACK_DELAY_PROPERTY = "twinbox.it.ackDelayMs";

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
    long ackDelayMs = Long.getLong(ACK_DELAY_PROPERTY, 0L);
    Transport transport = ackDelayMs > 0 ? new LateAcks(kafka, ackDelayMs) : kafka;
    Relay relay = Relay.builder(store, transport)
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

  /**
   * The real Kafka transport whose acks are handed to the relay {@code delayMs} late: the message is
   * on the broker at once, only the relay learns it later. Makes a test's SIGSTOP land while a batch
   * is in flight instead of while the relay idles between polls.
   */
  private static final class LateAcks implements Transport {
    private final Transport delegate;
    private final Executor late;

    LateAcks(Transport delegate, long delayMs) {
      this.delegate = delegate;
      this.late = CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
      return delegate.send(message).thenApplyAsync(outcome -> outcome, late);
    }

    @Override
    public void flush() {
      delegate.flush();
    }

    @Override
    public Optional<DeadLetterTransport> deadLetters() {
      return delegate.deadLetters();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /** {@code published=.. retried=.. dead=.. fenced=.. outages=.. batches=.. partitions=..}. */
  static String line(RelayStats s) {
    return "published=" + s.published() + " retried=" + s.retried() + " dead=" + s.dead()
        + " fenced=" + s.fenced() + " outages=" + s.outages() + " batches=" + s.batches()
        + " partitions=" + s.partitions();
  }
}
