package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxProperties;
import io.twinbox.spring.TwinboxProperties.Broker;
import io.twinbox.spring.internal.ConnectionBoundInboxHandler;
import io.twinbox.spring.kafka.TwinboxKafkaInboxConsumer;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Kafka, when twinbox-kafka is on the classpath and {@code twinbox.kafka.bootstrap-servers} is set:
 * the {@link KafkaPublisher} as the relay's transport (unless {@code twinbox.relay.transport} names
 * another broker), and a Kafka inbox consumer feeding the application's {@link InboxHandler} bean
 * from {@code twinbox.kafka.consumer.topics}.
 */
@AutoConfiguration(after = {TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class})
@ConditionalOnClass(KafkaPublisher.class)
@ConditionalOnProperty(name = "twinbox.kafka.bootstrap-servers")
@ConditionalOnBean(io.twinbox.jdbc.JdbcStore.class)
public class TwinboxKafkaAutoConfiguration {

  /** The relay's transport; a {@link TopicRouter} bean replaces the topic-per-aggregate-type default. */
  @Bean
  @ConditionalOnMissingBean(Transport.class)
  @ConditionalOnRelayTransport(Broker.KAFKA)
  public KafkaPublisher twinboxKafkaPublisher(TwinboxProperties properties, ObjectProvider<TopicRouter> router) {
    TwinboxProperties.Kafka kafka = properties.getKafka();
    Map<String, Object> producer = new LinkedHashMap<>(kafka.getProducer());
    producer.put("bootstrap.servers", kafka.getBootstrapServers());
    return KafkaPublisher.builder(producer)
        .topicRouter(router.getIfAvailable(() -> kafka.getTopic() != null
            ? TopicRouter.fixed(kafka.getTopic()) : TopicRouter.byAggregateType()))
        .build();
  }

  /**
   * Consumes {@code twinbox.kafka.consumer.topics} through the inbox into the handler. While the
   * handler runs, the inbox's connection is bound to the DataSource: {@code JdbcTemplate} and
   * {@code TransactionalOutbox} join the inbox's transaction.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(InboxHandler.class)
  @ConditionalOnBean(Inbox.class)
  @ConditionalOnBooleanProperty(name = "twinbox.kafka.consumer.enabled", matchIfMissing = true)
  public TwinboxKafkaInboxConsumer twinboxKafkaInboxConsumer(TwinboxProperties properties, Environment environment,
      Inbox inbox, DataSource dataSource, InboxHandler handler) {
    TwinboxProperties.Consumer settings = properties.getKafka().getConsumer();
    if (settings.getTopics().isEmpty()) {
      throw new IllegalStateException("twinbox.kafka.consumer.topics is required: the InboxHandler bean needs topics"
          + " to consume (or set twinbox.kafka.consumer.enabled=false)");
    }
    String groupId = settings.getGroupId() != null ? settings.getGroupId() : properties.inboxConsumer(environment);
    Map<String, Object> consumer = new LinkedHashMap<>(settings.getProperties());
    consumer.put("bootstrap.servers", properties.getKafka().getBootstrapServers());
    consumer.put("group.id", groupId);
    InboxHandler bound = new ConnectionBoundInboxHandler(dataSource, handler);
    return new TwinboxKafkaInboxConsumer(() -> KafkaInboxConsumer.builder(consumer)
        .topics(settings.getTopics().toArray(String[]::new))
        .inbox(inbox, dataSource)
        .handler(bound)
        .batchSize(settings.getBatchSize())
        .pollTimeout(settings.getPollTimeout())
        .build());
  }
}
