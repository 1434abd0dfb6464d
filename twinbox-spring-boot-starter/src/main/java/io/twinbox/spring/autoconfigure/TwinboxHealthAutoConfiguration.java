package io.twinbox.spring.autoconfigure;

import io.twinbox.Health;
import io.twinbox.HealthSettings;
import io.twinbox.TwinboxAdmin;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spring.TwinboxHealthIndicator;
import io.twinbox.spring.TwinboxRelay;
import io.twinbox.spring.TwinboxSettings;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code twinbox} health indicator when Spring Boot's health support is on the classpath; off
 * with {@code management.health.twinbox.enabled=false}.
 */
@AutoConfiguration(after = TwinboxAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(JdbcStore.class)
@ConditionalOnEnabledHealthIndicator("twinbox")
public class TwinboxHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public Health twinboxHealth(JdbcStore store, TwinboxSettings settings, ObjectProvider<TwinboxRelay> relay) {
    // Also DOWN while this application's relay stopped for good (a WAL relay whose slot was lost);
    // looked up at each check, so the relay bean is neither required nor created early.
    return TwinboxAdmin.of(store)
        .health(settings.get(HealthSettings.CATALOGUE, HealthSettings.MAX_OLDEST_PENDING_AGE))
        .watching(() -> {
          TwinboxRelay bean = relay.getIfAvailable();
          return bean == null ? null : bean.relay();
        });
  }

  @Bean
  @ConditionalOnMissingBean(name = "twinboxHealthIndicator")
  public TwinboxHealthIndicator twinboxHealthIndicator(Health health) {
    return new TwinboxHealthIndicator(health);
  }
}
