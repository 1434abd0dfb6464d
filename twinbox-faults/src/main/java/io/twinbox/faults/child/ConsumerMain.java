package io.twinbox.faults.child;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.InboxOrdering;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.nats.NatsInboxConsumer;
import io.twinbox.rabbitmq.RabbitInboxConsumer;
import io.twinbox.InboxConsumerSettings;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A consumer JVM of a fault run: the Kafka topic, RabbitMQ queue or JetStream stream through the inbox into the consumer's database,
 * where the business effect is a counter per message id ({@code effect.n}): any value above 1 is
 * a duplicate effect. Each effect also records the highest sequence of its aggregate whose effect
 * had committed before it was written ({@code effect.after_sequence}): one above its own sequence is
 * an effect applied out of order. The inbox runs with {@link InboxOrdering#DELTA}, which must make
 * that zero on every broker. Events of type {@value #POISON} are unprocessable and must be parked.
 *
 * <p>Events of type {@value #THROWS} fail in the handler every time (D5) and those of type
 * {@value #HALT} halt the JVM (D6); each run of their handler is journaled first ({@code <id>
 * <epoch ms>} lines), so the row counts handler runs independently of the inbox's own counters.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <transport> <group> <name> <handler journal>
 * <plain|serializable>}, the transport as
 * {@code kafka|<bootstrap>|<topic>|<group>}, {@code rabbitmq|<host>|<port>|<queue>} or
 * {@code nats|<host>|<port>|<stream>} (the group is the durable consumer's name).
 */
public final class ConsumerMain {
  public static final String STARTED = "CONSUMER-STARTED";
  public static final String STATS = "CONSUMER-STATS";
  /** Printed by a consumer the nemesis halted right after a commit (forced D2). */
  public static final String HALTED_AFTER_COMMIT = HaltAfterCommit.HALTED;
  public static final String POISON = "Poison";
  /** D5: an event whose handler always throws (a retriable failure): parked after {@link #MAX_ATTEMPTS}. */
  public static final String THROWS = "Throws";
  /** D6: an event whose handler halts the JVM: parked after at most {@link #MAX_ATTEMPTS} crashes. */
  public static final String HALT = "Halt";
  /**
   * D7: an event whose handler hangs for {@link #HANG_MILLIS} on its first run (longer than the
   * NATS consumers' ack wait of 30 s), then returns; later runs return at once.
   */
  public static final String HANG = "Hang";
  public static final long HANG_MILLIS = 45_000;
  /** The consumers' attempts per message (the library's default; the NATS consumer sets it too). */
  public static final int MAX_ATTEMPTS = InboxConsumerSettings.DEFAULT_RETRY.maxAttempts();
  /** Transactions at the database's default isolation. */
  public static final String PLAIN = "plain";
  /** D8: transactions at SERIALIZABLE, the handler also bumping a hot counter row. */
  public static final String SERIALIZABLE = "serializable";

  /** D8: the hot counter rows (the run creates them), one per aggregate hash. */
  public static final int HOT_ROWS = 8;

  private ConsumerMain() {}

  /**
   * The file that arms {@link HaltAfterCommit} for the consumer journaling handler runs to {@code
   * journal} (the nemesis's forced D2).
   */
  public static Path haltTrigger(Path journal) {
    return journal.resolveSibling(journal.getFileName() + ".halt");
  }

  /**
   * The command line {@link #main} reads, built in this one place for every run that starts a
   * consumer.
   */
  public static java.util.List<String> arguments(String jdbcUrl, String user, String password, String transport,
      String group, String name, Path handlerJournal, boolean serializable) {
    return java.util.List.of(jdbcUrl, user, password, transport, group, name, handlerJournal.toString(),
        serializable ? SERIALIZABLE : PLAIN);
  }

  public static void main(String[] args) throws InterruptedException, java.io.IOException {
    if (args.length != 8 || !args[7].equals(PLAIN) && !args[7].equals(SERIALIZABLE)) {
      throw new IllegalArgumentException("usage: ConsumerMain <jdbc url> <user> <password> <transport>"
          + " <group> <name> <handler journal> <plain|serializable>");
    }
    boolean serializable = args[7].equals(SERIALIZABLE);
    HikariDataSource ds = serializable
        ? Pools.open(args[0], args[1], args[2], "faults-consumer-" + args[5], 4, "TRANSACTION_SERIALIZABLE")
        : Pools.open(args[0], args[1], args[2], "faults-consumer-" + args[5], 4);
    FileOutputStream journal = new FileOutputStream(args[6], true);
    // D2, forced: while the nemesis's trigger file exists, the next commit that applied effects halts the JVM.
    javax.sql.DataSource pool = HaltAfterCommit.wrap(ds, haltTrigger(Path.of(args[6])));
    // The strict per-aggregate mode (FAULTS.md: consumer-side order is promised only with it): two
    // consumers compete for one RabbitMQ queue or JetStream consumer, and without the guard they
    // apply an aggregate's events out of order even with no fault at all (A1 on RabbitMQ, 20,000
    // events: 95 effects applied after a later one of their aggregate).
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(pool), args[4]).ordering(InboxOrdering.DELTA).build();
    InboxHandler handler = (c, m) -> {
          if (POISON.equals(m.type())) {
            throw new UnprocessableMessageException("poison event " + m.id());
          }
          if (HANG.equals(m.type())) {
            synchronized (journal) {
              journal.write((m.id() + " " + System.currentTimeMillis() + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            // The first run of any consumer hangs (the marker is created atomically); redeliveries do not.
            Path marker = Path.of(args[6]).resolveSibling("hang-" + m.id());
            try {
              Files.createFile(marker);
              Thread.sleep(HANG_MILLIS);
            } catch (java.nio.file.FileAlreadyExistsException ranBefore) {
              // a redelivery: no hang
            }
          }
          if (THROWS.equals(m.type()) || HALT.equals(m.type())) {
            // One line per handler run, written (unbuffered) before it fails, so a halt cannot lose it.
            synchronized (journal) {
              journal.write((m.id() + " " + System.currentTimeMillis() + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            if (HALT.equals(m.type())) {
              Runtime.getRuntime().halt(7);
            }
            throw new IllegalStateException("this handler always fails for " + m.id());
          }
          // after_sequence: the highest sequence of the aggregate whose effect had committed when
          // this one was written. No lock (two consumers' batches would deadlock on them), so two
          // effects in flight at once cannot see each other; every effect written after a later one
          // committed is caught.
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO effect (message_id, aggregate_id,"
              + " sequence, n, after_sequence) VALUES (?, ?, ?, 1, (SELECT max(sequence) FROM effect"
              + " WHERE aggregate_id = ?)) ON CONFLICT (message_id) DO UPDATE SET n = effect.n + 1")) {
            ps.setObject(1, UUID.fromString(m.id()));
            ps.setString(2, m.aggregateId());
            ps.setLong(3, m.sequence());
            ps.setString(4, m.aggregateId());
            ps.executeUpdate();
          }
          if (serializable) {
            // D8: a few hot rows that every transaction of both consumers writes, in message order,
            // so that SERIALIZABLE fails some of them (40001) and opposite orders deadlock (40P01).
            try (PreparedStatement ps = c.prepareStatement("UPDATE hot SET n = n + 1 WHERE id = ?")) {
              ps.setInt(1, Math.floorMod(m.aggregateId() == null ? m.id().hashCode() : m.aggregateId().hashCode(),
                  HOT_ROWS));
              ps.executeUpdate();
            }
          }
        };
    String[] spec = args[3].split("\\|");
    AutoCloseable consumer;
    Supplier<Object> stats;
    if (spec[0].equals("kafka")) {
      InboxConsumer kafka = KafkaInboxConsumer.builder(spec[1], spec[3])
          .topics(spec[2])
          .inbox(inbox, pool)
          .property("client.id", args[5])
          // A paused consumer loses its partitions within seconds, so pauses cause redeliveries.
          .property("session.timeout.ms", 6_000)
          .property("heartbeat.interval.ms", 1_000)
          .handler(handler)
          .build();
      kafka.start();
      consumer = kafka;
      stats = kafka::stats;
    } else if (spec[0].equals("rabbitmq")) {
      ConnectionFactory f = new ConnectionFactory();
      f.setHost(spec[1]);
      f.setPort(Integer.parseInt(spec[2]));
      f.setConnectionTimeout(5_000);
      InboxConsumer rabbit = RabbitInboxConsumer.builder(f, spec[3]).inbox(inbox, pool).handler(handler)
          .connectionName("faults-consumer-" + args[5]).reconnectBackoff(Duration.ofMillis(500)).build();
      rabbit.start();
      consumer = rabbit;
      stats = rabbit::stats;
    } else if (spec[0].equals("nats")) {
      // An ack wait of 30 s (default 60 s) so that a killed consumer's messages come back within
      // the drain's patience. Not shorter: at 6 s a loaded box fell into a redelivery storm (each
      // redelivered message costs an attempt transaction before its own, so the prefetched batch
      // outlived the ack wait again and again). The inline retries must fit in half of it.
      InboxConsumer nats = NatsInboxConsumer.builder("nats://" + spec[1] + ":" + spec[2], spec[3], args[4])
          .inbox(inbox, pool).handler(handler).ackWait(Duration.ofSeconds(30))
          .retryPolicy(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).backoff(Duration.ofMillis(100), Duration.ofMillis(500))
              .build())
          .build();
      nats.start();
      consumer = nats;
      stats = nats::stats;
    } else {
      throw new IllegalArgumentException("unknown transport " + spec[0]);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "consumer-stats");
      t.setDaemon(true);
      return t;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      ticker.shutdownNow();
      try {
        consumer.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      ds.close();
      System.out.println(STATS + " " + stats.get());
      System.out.flush();
      stopped.countDown();
    }, "consumer-shutdown"));
    System.out.println(STARTED + " " + args[5]);
    ticker.scheduleAtFixedRate(() -> System.out.println(STATS + " " + stats.get()),
        1, 1, TimeUnit.SECONDS);
    stopped.await();
  }
}
