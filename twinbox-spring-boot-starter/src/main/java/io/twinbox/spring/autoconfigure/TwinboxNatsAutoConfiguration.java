package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.nats.NatsInboxConsumer;
import io.twinbox.nats.NatsPublisher;
import io.twinbox.nats.NatsPublisherSettings;
import io.twinbox.settings.SettingValues;
import io.twinbox.nats.SubjectRouter;
import io.twinbox.spi.Transport;
import io.twinbox.spring.StarterSettings;
import io.twinbox.spring.StarterSettings.Broker;
import io.twinbox.spring.TwinboxSettings;
import io.twinbox.spring.internal.ConnectionBoundInboxHandler;
import io.twinbox.spring.internal.ObservedParts;
import io.twinbox.spring.nats.TwinboxNatsInboxConsumer;
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
 * NATS JetStream, when twinbox-nats is on the classpath and {@code twinbox.nats.url} is set: the
 * {@link NatsPublisher} as the relay's transport (unless {@code twinbox.relay.transport} names
 * another broker), and a NATS inbox consumer feeding the application's {@link InboxHandler} bean
 * from the durable consumer on {@code twinbox.nats.consumer.stream}.
 *
 * <p>Nothing here creates streams: that is the operators' (or {@code NatsStreams}') job. For
 * credentials files, NKeys or TLS, define your own {@link Transport} and {@link
 * TwinboxNatsInboxConsumer} beans on your {@code io.nats.client.Connection}.
 */
@AutoConfiguration(after = {TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class})
@ConditionalOnClass(NatsPublisher.class)
@ConditionalOnProperty(name = "twinbox.nats.url")
@ConditionalOnBean(JdbcStore.class)
public class TwinboxNatsAutoConfiguration {

  /**
   * The relay's transport; a {@link SubjectRouter} bean replaces the default, {@code
   * <twinbox.nats.subject-prefix>.<aggregate type>.<event type>}.
   */
  @Bean
  @ConditionalOnMissingBean(Transport.class)
  @ConditionalOnRelayTransport(Broker.NATS)
  public NatsPublisher twinboxNatsPublisher(TwinboxSettings settings, ObjectProvider<SubjectRouter> router) {
    NatsPublisher.Builder builder = NatsPublisherSettings.builder(settings.values(NatsPublisherSettings.CATALOGUE));
    router.ifAvailable(builder::subjectRouter);
    return builder.build();
  }

  /**
   * Consumes {@code twinbox.nats.consumer.stream} through the inbox into the handler, as the durable
   * consumer {@code twinbox.nats.consumer.durable} (default: the inbox consumer name). While the
   * handler runs, the inbox's connection is bound to the DataSource: {@code JdbcTemplate} and
   * {@code TransactionalOutbox} join the inbox's transaction.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(InboxHandler.class)
  @ConditionalOnBean(Inbox.class)
  @ConditionalOnBooleanProperty(name = "twinbox.nats.consumer.enabled", matchIfMissing = true)
  public TwinboxNatsInboxConsumer twinboxNatsInboxConsumer(TwinboxSettings settings, Environment environment,
      Inbox inbox, DataSource dataSource, InboxHandler handler, ObjectProvider<ObservedParts> observed) {
    SettingValues binding = settings.values(StarterSettings.Nats.CATALOGUE);
    String stream = binding.get(StarterSettings.Nats.STREAM);
    if (stream == null) {
      throw new IllegalStateException("twinbox.nats.consumer.stream is required: the InboxHandler bean needs a"
          + " JetStream stream to consume (or set twinbox.nats.consumer.enabled=false)");
    }
    String durable = binding.get(StarterSettings.Nats.DURABLE) != null ? binding.get(StarterSettings.Nats.DURABLE)
        : settings.inboxConsumer(environment);
    String url = settings.get(NatsPublisherSettings.CATALOGUE, NatsPublisherSettings.URL);
    InboxHandler bound = new ConnectionBoundInboxHandler(dataSource, ObservedParts.handler(observed,
        handler, settings.inboxConsumer(environment)));
    return new TwinboxNatsInboxConsumer(() -> {
      NatsInboxConsumer.Builder builder = NatsInboxConsumer.builder(url, stream, durable).inbox(inbox, dataSource)
          .handler(bound);
      if (binding.get(StarterSettings.Nats.FILTER_SUBJECT) != null) {
        builder.filterSubject(binding.get(StarterSettings.Nats.FILTER_SUBJECT));
      }
      return NatsInboxConsumer.Builder.SETTINGS.apply(builder, settings.values(NatsInboxConsumer.Builder.SETTINGS))
          .build();
    });
  }
}
