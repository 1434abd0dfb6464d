package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.KafkaPublisherSettings;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.Transport;
import io.twinbox.spring.StarterSettings;
import io.twinbox.spring.StarterSettings.Broker;
import io.twinbox.spring.TwinboxSettings;
import io.twinbox.settings.SettingValues;
import io.twinbox.spring.internal.ConnectionBoundInboxHandler;
import io.twinbox.spring.internal.ObservedParts;
import io.twinbox.spring.kafka.TwinboxKafkaInboxConsumer;
import java.util.LinkedHashMap;
import java.util.List;
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
  public KafkaPublisher twinboxKafkaPublisher(TwinboxSettings settings, ObjectProvider<TopicRouter> router) {
    KafkaPublisher.Builder builder = KafkaPublisherSettings.builder(settings.values(KafkaPublisherSettings.CATALOGUE));
    router.ifAvailable(builder::topicRouter);
    return builder.build();
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
  public TwinboxKafkaInboxConsumer twinboxKafkaInboxConsumer(TwinboxSettings settings, Environment environment,
      Inbox inbox, DataSource dataSource, InboxHandler handler, ObjectProvider<ObservedParts> observed) {
    SettingValues binding = settings.values(StarterSettings.Kafka.CATALOGUE);
    List<String> topics = binding.get(StarterSettings.Kafka.TOPICS);
    if (topics == null || topics.isEmpty()) {
      throw new IllegalStateException("twinbox.kafka.consumer.topics is required: the InboxHandler bean needs topics"
          + " to consume (or set twinbox.kafka.consumer.enabled=false)");
    }
    String groupId = binding.get(StarterSettings.Kafka.GROUP_ID) != null ? binding.get(StarterSettings.Kafka.GROUP_ID)
        : settings.inboxConsumer(environment);
    Map<String, Object> consumer = new LinkedHashMap<>();
    Map<String, String> more = binding.get(StarterSettings.Kafka.PROPERTIES);
    if (more != null) {
      consumer.putAll(more);
    }
    consumer.put("bootstrap.servers", settings.get(KafkaPublisherSettings.CATALOGUE, KafkaPublisherSettings.BOOTSTRAP_SERVERS));
    consumer.put("group.id", groupId);
    InboxHandler bound = new ConnectionBoundInboxHandler(dataSource, ObservedParts.handler(observed, handler,
        settings.inboxConsumer(environment)));
    return new TwinboxKafkaInboxConsumer(() -> KafkaInboxConsumer.Builder.SETTINGS.apply(
        KafkaInboxConsumer.builder(consumer).topics(topics.toArray(String[]::new)).inbox(inbox, dataSource)
            .handler(bound), settings.values(KafkaInboxConsumer.Builder.SETTINGS)).build());
  }
}
