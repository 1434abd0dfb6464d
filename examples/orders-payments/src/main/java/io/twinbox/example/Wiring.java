package io.twinbox.example;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * How a service is connected to Kafka with Twinbox — the few lines a real service would have in
 * its start-up code: a {@link Relay} from its outbox to its topic, and a {@link KafkaInboxConsumer}
 * from the other service's topic through its {@link Inbox}. Wrapped in restartable holders so that
 * the demo's chaos can restart them. Stateless.
 */
final class Wiring {
  private Wiring() {}

  /**
   * A relay publishing {@code store}'s outbox to {@code topic}, CloudEvents source {@code source}.
   *
   * @param leaseTtl how soon another relay takes over after this one dies without closing
   * @param chaos wraps each new transport (identity when there is no chaos)
   */
  static RestartableRelay relay(JdbcStore store, String source, String bootstrap, String topic, Duration leaseTtl,
      UnaryOperator<Transport> chaos) {
    return new RestartableRelay(
        () -> chaos.apply(KafkaPublisher.builder(bootstrap).topicRouter(TopicRouter.fixed(topic)).build()),
        transport -> Relay.builder(store, transport)
            .source(source)
            .leaseTtl(leaseTtl)
            .pollInterval(Duration.ofMillis(200))
            .build());
  }

  /**
   * A consumer of {@code topic} that applies {@code handler} through {@code inbox} on {@code dataSource}.
   *
   * @param groupIds the group id of each new instance (a replaying consumer returns a new one each time)
   * @param batchSize messages per database transaction
   * @param retry attempts before a failing message is parked
   * @param extra further consumer properties, e.g. {@code group.instance.id}
   */
  static RestartableConsumer consumer(String name, Inbox inbox, DataSource dataSource, InboxHandler handler,
      String bootstrap, Supplier<String> groupIds, String topic, int batchSize, RetryPolicy retry,
      Map<String, Object> extra) {
    return new RestartableConsumer(name, () -> {
      KafkaInboxConsumer.Builder b = KafkaInboxConsumer.builder(bootstrap, groupIds.get())
          .topics(topic)
          .inbox(inbox, dataSource)
          .handler(handler)
          .batchSize(batchSize)
          .retryPolicy(retry)
          // A member that dies without leaving is noticed after 10 s instead of 45 s.
          .property("session.timeout.ms", 10_000)
          .property("heartbeat.interval.ms", 1_000);
      extra.forEach(b::property);
      return b.build();
    });
  }
}
