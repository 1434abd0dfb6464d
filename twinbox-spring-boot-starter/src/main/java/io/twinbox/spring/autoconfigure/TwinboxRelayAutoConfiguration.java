package io.twinbox.spring.autoconfigure;

import io.twinbox.Relay;
import io.twinbox.RelayListener;
import io.twinbox.RelaySettings;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TwinboxSettings;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.spring.internal.CompositeRelayListener;
import io.twinbox.spring.internal.ObservedParts;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The relay as a lifecycle bean, on the application's {@link Transport} bean (or the Kafka,
 * RabbitMQ or NATS publisher configured from {@code twinbox.kafka.*}, {@code twinbox.rabbitmq.*} or
 * {@code twinbox.nats.*}; {@code twinbox.relay.transport} chooses when several are). Off with
 * {@code twinbox.relay.enabled=false}, to run the standalone relay instead. Without a transport
 * there is no relay: pending events then turn the health indicator DOWN.
 */
@AutoConfiguration(after = {TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class,
    TwinboxKafkaAutoConfiguration.class, TwinboxRabbitAutoConfiguration.class, TwinboxNatsAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "twinbox.relay.enabled", matchIfMissing = true)
@ConditionalOnBean(JdbcStore.class)
@ConditionalOnSingleCandidate(Transport.class)
public class TwinboxRelayAutoConfiguration {

  /** Relay settings from {@code twinbox.relay.*} ({@link RelaySettings}); every {@link RelayListener} bean listens. */
  @Bean
  @ConditionalOnMissingBean
  public TwinboxRelay twinboxRelay(JdbcStore store, Transport transport, TwinboxSettings settings,
      ObjectProvider<RelayListener> listeners, ObjectProvider<ObservedParts> observed) {
    return new TwinboxRelay(() -> RelaySettings.CATALOGUE.apply(Relay.builder(store,
            ObservedParts.transport(observed, transport))
            .listener(CompositeRelayListener.of(listeners.orderedStream().toList())),
        settings.values(RelaySettings.CATALOGUE)).build());
  }
}
