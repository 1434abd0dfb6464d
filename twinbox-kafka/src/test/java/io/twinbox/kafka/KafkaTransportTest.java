package io.twinbox.kafka;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.TransportContract;
import io.twinbox.testkit.contract.TransportFixture;
import java.util.List;
import javax.sql.DataSource;

/**
 * The transport contract on a Kafka broker of its own that does not create topics on first use
 * ({@code auto.create.topics.enable=false}, as on most production clusters): every destination is
 * created explicitly, and a missing one stays missing. Kafka consumers cannot be cut off through
 * a proxy (the broker advertises its own address), so {@code crash()} is a plain stop here. The
 * outage test is skipped: {@code KafkaBrokerOutageTest} kills and restarts a broker of its own.
 */
class KafkaTransportTest extends TransportContract {
  @Override
  protected TransportFixture createFixture() {
    return new KafkaFixture();
  }

  private static final class KafkaFixture implements TransportFixture {
    private final KafkaBroker broker = KafkaBroker.startWithoutAutoCreate();
    private final PostgresDatabase db = PostgresDatabase.create();
    private final JdbcStore store = JdbcStore.builder(db.dataSource()).build();

    KafkaFixture() {
      store.migrate();
    }

    @Override
    public String name() {
      return "Kafka";
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
      broker.createTopic("tb-" + name, 2);
      return "tb-" + name;
    }

    private KafkaPublisher.Builder publisherBuilder(String topic) {
      return KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(TopicRouter.fixed(topic))
          // A send that outlives this is an outage to the contract; 5 s was once too short for a
          // fresh topic on a quiet machine (CI: 2 records expired, nothing else wrong).
          .property("delivery.timeout.ms", 20_000).property("max.block.ms", 2_000);
    }

    @Override
    public Transport publisher(String destination) {
      return publisherBuilder(destination).build();
    }

    @Override
    public RunningConsumer startConsumer(String destination, Inbox inbox, InboxHandler handler, RetryPolicy retry) {
      InboxConsumer c = KafkaInboxConsumer.builder(broker.bootstrapServers(), inbox.consumer() + "-" + destination)
          .topics(destination).inbox(inbox, db.dataSource()).handler(handler).retryPolicy(retry).build();
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
          c.close(); // no way to cut a Kafka consumer off mid-transaction from outside
        }

        @Override
        public void close() {
          c.close();
        }
      };
    }

    @Override
    public List<Rejection> rejections(String destination) {
      // Over max.request.size (1 MiB by default): the producer refuses it as RecordTooLargeException.
      return List.of(new Rejection(publisher(destination),
          TransportContract.message("big", 1, "\"" + "x".repeat(1_100_000) + "\""), "RecordTooLarge"));
    }

    @Override
    public MissingDestination missingDestination(String destination, String lostType) {
      String missing = destination + "-never-created";
      return new MissingDestination(publisherBuilder(destination)
          .topicRouter(m -> m.aggregateType().equals(lostType) ? missing : destination).build(), missing);
    }

    @Override
    public boolean deduplicates() {
      return false; // idempotence dedups a producer's own retries, not a second send of the same event
    }

    @Override
    public boolean interruptBroker() {
      // KafkaBrokerOutageTest kills (-9) and restarts a broker of its own and proves the same
      // (UNAVAILABLE during the outage, ACKED after); a second restart here would cost ~35 s.
      return false;
    }

    @Override
    public void restoreBroker() {
      // Never interrupted.
    }

    @Override
    public void close() {
      db.close();
      broker.close();
    }
  }
}
