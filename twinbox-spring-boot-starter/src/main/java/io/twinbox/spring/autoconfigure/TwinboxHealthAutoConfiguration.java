package io.twinbox.spring.autoconfigure;

import io.twinbox.Health;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spring.TwinboxHealthIndicator;
import io.twinbox.spring.TwinboxProperties;
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
  public Health twinboxHealth(JdbcStore store, TwinboxProperties properties) {
    return new Health(store, properties.getHealth().getMaxOldestPendingAge());
  }

  @Bean
  @ConditionalOnMissingBean(name = "twinboxHealthIndicator")
  public TwinboxHealthIndicator twinboxHealthIndicator(Health health) {
    return new TwinboxHealthIndicator(health);
  }
}
