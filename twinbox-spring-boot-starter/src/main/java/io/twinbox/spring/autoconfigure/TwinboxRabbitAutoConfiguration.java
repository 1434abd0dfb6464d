package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.rabbitmq.RabbitInboxConsumer;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitPublisherSettings;
import io.twinbox.settings.SettingValues;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.spi.Transport;
import io.twinbox.spring.StarterSettings;
import io.twinbox.spring.StarterSettings.Broker;
import io.twinbox.spring.TwinboxSettings;
import java.util.List;
import io.twinbox.spring.internal.ConnectionBoundInboxHandler;
import io.twinbox.spring.internal.ObservedParts;
import io.twinbox.spring.rabbitmq.TwinboxRabbitInboxConsumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * RabbitMQ, when twinbox-rabbitmq is on the classpath and {@code twinbox.rabbitmq.uri} or {@code
 * twinbox.rabbitmq.host} is set: the {@link RabbitPublisher} as the relay's transport (unless
 * {@code twinbox.relay.transport} names another broker), and RabbitMQ inbox consumers feeding the
 * application's {@link InboxHandler} bean from {@code twinbox.rabbitmq.consumer.queues}.
 *
 * <p>Nothing here declares exchanges or queues: that is the operators' (or {@code RabbitTopology}'s)
 * job. For TLS or other connection settings, define your own {@link Transport} and {@link
 * TwinboxRabbitInboxConsumer} beans from a {@code ConnectionFactory}.
 */
@AutoConfiguration(after = {TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class})
@ConditionalOnClass(RabbitPublisher.class)
@Conditional(TwinboxRabbitAutoConfiguration.RabbitConfigured.class)
@ConditionalOnBean(JdbcStore.class)
public class TwinboxRabbitAutoConfiguration {

  /**
   * The relay's transport; a {@link RabbitRouter} bean replaces the exchange-per-aggregate-type
   * default (or the single {@code twinbox.rabbitmq.exchange}).
   */
  @Bean
  @ConditionalOnMissingBean(Transport.class)
  @ConditionalOnRelayTransport(Broker.RABBITMQ)
  public RabbitPublisher twinboxRabbitPublisher(TwinboxSettings settings, ObjectProvider<RabbitRouter> router) {
    RabbitPublisher.Builder builder = RabbitPublisherSettings.builder(settings.values(RabbitPublisherSettings.CATALOGUE));
    router.ifAvailable(builder::router);
    return builder.build();
  }

  /**
   * Consumes each of {@code twinbox.rabbitmq.consumer.queues} through the inbox into the handler.
   * While the handler runs, the inbox's connection is bound to the DataSource: {@code JdbcTemplate}
   * and {@code TransactionalOutbox} join the inbox's transaction.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(InboxHandler.class)
  @ConditionalOnBean(Inbox.class)
  @ConditionalOnBooleanProperty(name = "twinbox.rabbitmq.consumer.enabled", matchIfMissing = true)
  public TwinboxRabbitInboxConsumer twinboxRabbitInboxConsumer(TwinboxSettings settings, Environment environment,
      Inbox inbox, DataSource dataSource, InboxHandler handler, ObjectProvider<ObservedParts> observed) {
    SettingValues connection = settings.values(RabbitPublisherSettings.CATALOGUE);
    List<String> queues = settings.get(StarterSettings.Rabbit.CATALOGUE, StarterSettings.Rabbit.QUEUES);
    if (queues == null || queues.isEmpty()) {
      throw new IllegalStateException("twinbox.rabbitmq.consumer.queues is required: the InboxHandler bean needs"
          + " queues to consume (or set twinbox.rabbitmq.consumer.enabled=false)");
    }
    InboxHandler bound = new ConnectionBoundInboxHandler(dataSource, ObservedParts.handler(observed,
        handler, settings.inboxConsumer(environment)));
    return new TwinboxRabbitInboxConsumer(() -> queues.stream()
        .map(queue -> RabbitInboxConsumer.Builder.SETTINGS.apply(
            RabbitInboxConsumer.builder(RabbitPublisherSettings.connectionFactory(connection), queue)
                .inbox(inbox, dataSource).handler(bound),
            settings.values(RabbitInboxConsumer.Builder.SETTINGS)).build())
        .toList());
  }

  /** {@code twinbox.rabbitmq.uri} or {@code twinbox.rabbitmq.host} is set. */
  static final class RabbitConfigured extends AnyNestedCondition {
    RabbitConfigured() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(name = "twinbox.rabbitmq.uri")
    static final class Uri {}

    @ConditionalOnProperty(name = "twinbox.rabbitmq.host")
    static final class Host {}
  }
}
