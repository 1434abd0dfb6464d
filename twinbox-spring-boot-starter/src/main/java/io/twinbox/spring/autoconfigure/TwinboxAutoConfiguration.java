package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxListener;
import io.twinbox.InboxSettings;
import io.twinbox.Outbox;
import io.twinbox.OutboxSettings;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spring.TransactionalOutbox;
import io.twinbox.spring.StarterSettings;
import io.twinbox.spring.TwinboxSettings;
import io.twinbox.spring.internal.CompositeInboxListener;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.ApplicationContext;
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
public class TwinboxAutoConfiguration {

  /**
   * Every {@code twinbox.*} property, bound and checked through the catalogues before any other
   * Twinbox bean is made: a bad value stops the start naming the property and the limit.
   */
  @Bean
  @ConditionalOnMissingBean
  public TwinboxSettings twinboxSettings(Environment environment, ApplicationContext context) {
    return TwinboxSettings.bind(environment, context.getClassLoader());
  }

  /** The JDBC store, migrated at startup unless {@code twinbox.migrate=false}. */
  @Bean
  @ConditionalOnMissingBean
  public JdbcStore twinboxStore(DataSource dataSource, TwinboxSettings settings) {
    JdbcStore store = JdbcStore.builder(dataSource).build();
    if (settings.get(StarterSettings.TOP, StarterSettings.MIGRATE)) {
      store.migrate();
    }
    return store;
  }

  @Bean
  @ConditionalOnMissingBean
  public Outbox twinboxOutbox(JdbcStore store, TwinboxSettings settings) {
    return OutboxSettings.CATALOGUE.apply(Outbox.builder(store), settings.values(OutboxSettings.CATALOGUE)).build();
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
  public Inbox twinboxInbox(JdbcStore store, TwinboxSettings settings, Environment environment,
      ObjectProvider<InboxListener> listeners) {
    Inbox.Builder builder = Inbox.builder(JdbcInboxStore.of(store), settings.inboxConsumer(environment))
        .listener(CompositeInboxListener.of(listeners.orderedStream().toList()));
    return InboxSettings.CATALOGUE.apply(builder, settings.values(InboxSettings.CATALOGUE)).build();
  }
}
