package io.twinbox.faults.child;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.RelayStats;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.spi.Transport;
import com.rabbitmq.client.ConnectionFactory;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.twinbox.nats.NatsPublisher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A relay JVM of a fault run: outbox (through the fault proxy) to a Kafka topic, RabbitMQ exchange or JetStream stream, rows marked
 * {@code PUBLISHED} (not deleted) so that the checker can see them, every broker ack journaled.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <transport> <node id> <lease ttl ms> <journal
 * file> <polling|wal> <max attempts>} (0: the default {@code RetryPolicy}; C2 sets 5) (WAL: {@code RelayMode.WAL} on slot {@value #WAL_SLOT}), the transport as {@code kafka|<bootstrap>|<topic>}, {@code
 * rabbitmq|<host>|<port>|<exchange>} or {@code nats|<host>|<port>|<subject prefix>} (see {@link #transport}). Prints {@value #STARTED} once running, {@value #STATS} lines every 500 ms and
 * {@value #FINAL} on SIGTERM (with the longest stall of the whole process that the stats ticker saw,
 * see {@link StallGauge}). While the file {@link #haltTrigger} exists, the process halts just before
 * its next completion statement ({@link HaltBeforeCompletion}, forced B2).
 */
public final class RelayMain {
  public static final String STARTED = "RELAY-STARTED";
  public static final String STATS = "RELAY-STATS";
  public static final String FINAL = "RELAY-FINAL";
  /** The replication slot of the WAL rows. */
  public static final String WAL_SLOT = "twinbox_faults";

  private RelayMain() {}

  /**
   * The command line {@link #main} reads, built in this one place for every run that starts a
   * relay (the matrix's and the soak's once drifted apart: the soak's relays refused to start).
   *
   * @param maxAttempts the relay's attempts, 0 for the library's default
   */
  public static java.util.List<String> arguments(String jdbcUrl, String user, String password, String transport,
      String nodeId, long leaseTtlMillis, Path journal, boolean wal, int maxAttempts) {
    return java.util.List.of(jdbcUrl, user, password, transport, nodeId, Long.toString(leaseTtlMillis),
        journal.toString(), wal ? "wal" : "polling", Integer.toString(maxAttempts));
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 9 || !args[7].equals("polling") && !args[7].equals("wal")) {
      throw new IllegalArgumentException("usage: RelayMain <jdbc url> <user> <password> <transport>"
          + " <node id> <lease ttl ms> <journal> <polling|wal> <max attempts, 0 for the default>");
    }
    int maxAttempts = Integer.parseInt(args[8]);
    HikariDataSource ds = Pools.open(args[0], args[1], args[2], "faults-relay-" + args[4], 6);
    Path haltTrigger = haltTrigger(Path.of(args[6]));
    JdbcStore store = JdbcStore.builder(HaltBeforeCompletion.wrap(ds, haltTrigger)).build();
    AckJournal journal = new AckJournal(transport(args[3], args[4]), Path.of(args[6]));
    Relay relay = Relay.builder(store, journal)
        .nodeId(args[4])
        .leaseTtl(Duration.ofMillis(Long.parseLong(args[5])))
        .publishTimeout(Duration.ofSeconds(25))
        .pollInterval(Duration.ofMillis(200))
        .batchSize(200)
        .workers(2)
        .completionMode(CompletionMode.MARK)
        .mode(args[7].equals("wal") ? RelayMode.WAL : RelayMode.POLLING)
        .walSlot(WAL_SLOT)
        .walSweepInterval(Duration.ofMillis(200))
        .retryPolicy(maxAttempts > 0 ? RetryPolicy.ofDefaults().toBuilder().maxAttempts(maxAttempts).build()
            : RetryPolicy.ofDefaults())
        .build();
    CountDownLatch stopped = new CountDownLatch(1);
    StallGauge stalls = new StallGauge(500, 250);
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
      System.out.println(FINAL + " " + line(relay.stats()) + " maxStallMs=" + stalls.maxMillis());
      System.out.flush();
      stopped.countDown();
    }, "relay-shutdown"));
    relay.start();
    System.out.println(STARTED + " " + relay.nodeId() + " clock=" + java.time.Instant.now());
    ticker.scheduleAtFixedRate(() -> {
      stalls.tick();
      System.out.println(STATS + " " + line(relay.stats()));
    }, 500, 500, TimeUnit.MILLISECONDS);
    stopped.await();
  }

  /**
   * The file that arms {@link HaltBeforeCompletion} for the relay journaling to {@code journal}
   * (the nemesis's forced B2).
   */
  public static Path haltTrigger(Path journal) {
    return journal.resolveSibling(journal.getFileName() + ".halt");
  }

  /**
   * {@code kafka|<bootstrap>|<topic>}, {@code rabbitmq|<host>|<port>|<exchange>} or {@code
   * nats|<host>|<port>|<subject prefix>}.
   */
  static Transport transport(String spec, String nodeId) {
    String[] p = spec.split("\\|");
    switch (p[0]) {
      case "kafka" -> {
        return KafkaPublisher.builder(p[1]).topicRouter(TopicRouter.fixed(p[2]))
            .property("delivery.timeout.ms", 20_000).property("request.timeout.ms", 5_000).build();
      }
      case "rabbitmq" -> {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(p[1]);
        f.setPort(Integer.parseInt(p[2]));
        f.setConnectionTimeout(5_000);
        f.setHandshakeTimeout(5_000);
        return RabbitPublisher.builder(f).router(RabbitRouter.fixed(p[3])).connectionName("faults-relay-" + nodeId)
            .confirmTimeout(Duration.ofSeconds(5)).reconnectBackoff(Duration.ofMillis(200)).build();
      }
      case "nats" -> {
        String prefix = p[3];
        return NatsPublisher.builder(natsConnection(p[1], Integer.parseInt(p[2]), "faults-relay-" + nodeId))
            .subjectRouter(m -> prefix + "." + m.type()).publishTimeout(Duration.ofSeconds(5)).build();
      }
      default -> throw new IllegalArgumentException("unknown transport " + p[0]);
    }
  }

  /**
   * A connection to the fault proxy only: no randomising, and the server addresses a server may
   * announce in INFO ({@code connect_urls}) ignored, so reconnects never bypass the proxy. Pings
   * every 2 s so that a blackholed link is noticed. Retries the first connect (the link may be
   * faulty while a relay restarts).
   */
  static io.nats.client.Connection natsConnection(String host, int port, String name) {
    Options options = new Options.Builder().server("nats://" + host + ":" + port).connectionName(name)
        .noRandomize().ignoreDiscoveredServers().maxReconnects(-1).reconnectWait(Duration.ofMillis(500))
        .connectionTimeout(Duration.ofSeconds(5)).pingInterval(Duration.ofSeconds(2)).build();
    for (int attempt = 1; ; attempt++) {
      try {
        return Nats.connect(options);
      } catch (java.io.IOException e) {
        if (attempt >= 60) {
          throw new IllegalStateException("cannot connect to NATS at " + host + ":" + port, e);
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(ie);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  static String line(RelayStats s) {
    return "published=" + s.published() + " retried=" + s.retried() + " dead=" + s.dead()
        + " fenced=" + s.fenced() + " outages=" + s.outages() + " batches=" + s.batches();
  }
}
