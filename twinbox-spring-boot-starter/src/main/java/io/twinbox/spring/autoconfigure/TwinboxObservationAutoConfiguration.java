package io.twinbox.spring.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.twinbox.spring.internal.ObservedParts;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer observations of every publish and every handled message ({@code twinbox.relay.send},
 * {@code twinbox.inbox.handle}; see {@code io.twinbox.micrometer.ObservedTransport} and {@code
 * ObservedInboxHandler}) when Micrometer's Observation API is on the classpath and the application
 * has an {@link ObservationRegistry}, as Spring Boot's Actuator provides: timers in {@code
 * /actuator/metrics}, spans with Micrometer Tracing. Off for one of them with Spring Boot's
 * {@code management.observations.enable.twinbox.relay.send=false} (or {@code ...inbox.handle}).
 */
@AutoConfiguration(before = {TwinboxRelayAutoConfiguration.class, TwinboxKafkaAutoConfiguration.class,
    TwinboxRabbitAutoConfiguration.class, TwinboxNatsAutoConfiguration.class})
@ConditionalOnClass(ObservationRegistry.class)
public class TwinboxObservationAutoConfiguration {

  /** Wraps the relay's transport and the inbox handlers, when an ObservationRegistry bean exists. */
  @Bean
  @ConditionalOnMissingBean
  public ObservedParts twinboxObservedParts(ObjectProvider<ObservationRegistry> registry) {
    return new ObservedParts(registry);
  }
}
