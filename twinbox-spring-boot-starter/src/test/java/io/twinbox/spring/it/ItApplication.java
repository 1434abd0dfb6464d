package io.twinbox.spring.it;

import io.twinbox.InboxHandler;
import io.twinbox.OutboxEvent;
import io.twinbox.spring.TransactionalOutbox;
import jakarta.persistence.EntityManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/** The application under test: the order service and an inbox handler acknowledging each order. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ItApplication {

  @Bean
  Orders orders(JdbcTemplate jdbc, ObjectProvider<EntityManager> entityManager, TransactionalOutbox outbox) {
    return new Orders(jdbc, entityManager, outbox);
  }

  /**
   * Records each {@code OrderPlaced} with JdbcTemplate and answers {@code OrderAcknowledged}
   * through the TransactionalOutbox: both must join the inbox's transaction.
   */
  @Bean
  InboxHandler acknowledgeOrders(JdbcTemplate jdbc, TransactionalOutbox outbox) {
    return (connection, message) -> {
      if (!message.type().equals("OrderPlaced")) {
        return;
      }
      String orderId = message.aggregateId();
      jdbc.update("INSERT INTO spring_it_received (message_id, order_id) VALUES (?::uuid, ?)", message.id(), orderId);
      outbox.write(OutboxEvent.builder("OrderAcknowledged", 1).aggregate("Order", orderId)
          .payload("{\"orderId\":\"" + orderId + "\"}").causationId(message.id()).build());
    };
  }
}
