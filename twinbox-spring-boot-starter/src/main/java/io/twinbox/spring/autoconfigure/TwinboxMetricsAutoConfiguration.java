package io.twinbox.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.twinbox.InboxHandler;
import io.twinbox.TwinboxAdmin;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.micrometer.InboxMetrics;
import io.twinbox.micrometer.OutboxMetrics;
import io.twinbox.micrometer.ParkedMetrics;
import io.twinbox.micrometer.RelayMetrics;
import io.twinbox.micrometer.RetentionMetrics;
import io.twinbox.spring.TwinboxSettings;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Twinbox's Micrometer meters when a {@link MeterRegistry} exists: outbox gauges, relay and inbox
 * counters and timers, the parked-message gauges of the inbox's consumer. They are {@code MeterBinder} beans, bound by Spring Boot's metrics support;
 * the relay and inbox listen through them.
 */
@AutoConfiguration(after = TwinboxAutoConfiguration.class, afterName =
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, OutboxMetrics.class})
@ConditionalOnBean({MeterRegistry.class, JdbcStore.class})
public class TwinboxMetricsAutoConfiguration {

  /** Gauges over the outbox table, read at most every 5 s. */
  @Bean
  @ConditionalOnMissingBean
  public OutboxMetrics twinboxOutboxMetrics(JdbcStore store) {
    return OutboxMetrics.of(store);
  }

  /** Relay meters, tagged {@code relay=<spring.application.name>} (default {@code twinbox}). */
  @Bean
  @ConditionalOnMissingBean
  public RelayMetrics twinboxRelayMetrics(Environment environment) {
    return new RelayMetrics(environment.getProperty("spring.application.name", "twinbox"));
  }

  /** Inbox meters, tagged with the inbox's consumer name. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(InboxHandler.class)
  public InboxMetrics twinboxInboxMetrics(TwinboxSettings settings, Environment environment) {
    return new InboxMetrics(settings.inboxConsumer(environment));
  }

  /** Retention's meters (rows deleted, rounds, last round's duration), with {@code twinbox.retention.enabled}. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "twinbox.retention.enabled", matchIfMissing = false)
  public RetentionMetrics twinboxRetentionMetrics() {
    return new RetentionMetrics();
  }

  /** Parked-message gauges of the inbox's consumer, read at most every 5 s. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(InboxHandler.class)
  public ParkedMetrics twinboxParkedMetrics(JdbcStore store, TwinboxSettings settings, Environment environment) {
    return ParkedMetrics.of(TwinboxAdmin.of(store), settings.inboxConsumer(environment));
  }
}
