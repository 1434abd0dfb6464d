package io.twinbox.spring.it;

import io.twinbox.InboxHandler;
import io.twinbox.spring.TransactionalOutbox;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application of the broker tests: the order service (JdbcTemplate, {@code @Transactional})
 * and an inbox handler whose effect is one row per applied {@code OrderPlaced}, written with
 * JdbcTemplate in the inbox's transaction. The effect table has no key, so a message applied
 * twice would show as two rows.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
    "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
    "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration"})
public class BrokerItApplication {

  /** Starts the application on {@code db} with the auto-configuration found on the classpath. */
  static ConfigurableApplicationContext run(EffectDatabase db, String... properties) {
    return run(db, List.of(), List.of(properties));
  }

  /** As {@link #run(EffectDatabase, String...)}, with more configuration classes. */
  static ConfigurableApplicationContext run(EffectDatabase db, List<Class<?>> more, List<String> properties) {
    List<String> all = new ArrayList<>(db.properties());
    all.add("twinbox.relay.poll-interval=100ms");
    all.addAll(properties);
    List<Class<?>> sources = new ArrayList<>(List.of(BrokerItApplication.class));
    sources.addAll(more);
    return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new)).run();
  }

  @Bean
  Orders orders(JdbcTemplate jdbc, ObjectProvider<EntityManager> entityManager, TransactionalOutbox outbox) {
    return new Orders(jdbc, entityManager, outbox);
  }

  @Bean
  InboxHandler recordEffects(JdbcTemplate jdbc) {
    return (connection, message) -> {
      if (message.type().equals("OrderPlaced")) {
        jdbc.update("INSERT INTO spring_it_effect (message_id, order_id, payload) VALUES (?::uuid, ?, ?)",
            message.id(), message.aggregateId(), message.payload());
      }
    };
  }
}
