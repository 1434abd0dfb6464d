package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxListener;
import io.twinbox.Outbox;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spring.TransactionalOutbox;
import io.twinbox.spring.TwinboxProperties;
import io.twinbox.spring.internal.CompositeInboxListener;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The store on the application's DataSource, the outbox, the {@link TransactionalOutbox} and, when
 * an {@link InboxHandler} bean exists, the inbox. Every bean backs off when the application defines
 * its own.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"})
@ConditionalOnClass({JdbcStore.class, DataSourceUtils.class})
@ConditionalOnBooleanProperty(name = "twinbox.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(TwinboxProperties.class)
public class TwinboxAutoConfiguration {

  /** The JDBC store, migrated at startup unless {@code twinbox.migrate=false}. */
  @Bean
  @ConditionalOnMissingBean
  public JdbcStore twinboxStore(DataSource dataSource, TwinboxProperties properties) {
    JdbcStore store = JdbcStore.builder(dataSource).build();
    if (properties.isMigrate()) {
      store.migrate();
    }
    return store;
  }

  @Bean
  @ConditionalOnMissingBean
  public Outbox twinboxOutbox(JdbcStore store, TwinboxProperties properties) {
    return Outbox.builder(store)
        .maxPayloadBytes(properties.getOutbox().getMaxPayloadBytes())
        .captureTraceContext(properties.getOutbox().isCaptureTraceContext())
        .build();
  }

  @Bean
  @ConditionalOnMissingBean
  public TransactionalOutbox twinboxTransactionalOutbox(Outbox outbox, DataSource dataSource) {
    return new TransactionalOutbox(outbox, dataSource);
  }

  /** The inbox behind the listeners; recorded under {@code twinbox.inbox.consumer}. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(InboxHandler.class)
  public Inbox twinboxInbox(JdbcStore store, TwinboxProperties properties, Environment environment,
      ObjectProvider<InboxListener> listeners) {
    return Inbox.builder(JdbcInboxStore.of(store), properties.inboxConsumer(environment))
        .retention(properties.getInbox().getRetention())
        .redeliveryHorizon(properties.getInbox().getRedeliveryHorizon())
        .listener(CompositeInboxListener.of(listeners.orderedStream().toList()))
        .build();
  }
}
