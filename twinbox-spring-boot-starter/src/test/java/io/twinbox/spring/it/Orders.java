package io.twinbox.spring.it;

import io.twinbox.OutboxEvent;
import io.twinbox.spring.TransactionalOutbox;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders in {@code @Transactional} methods, with JdbcTemplate or JPA, each with an
 * {@code OrderPlaced} event written through the {@link TransactionalOutbox}; {@code fail} makes the
 * method throw after both writes, so the transaction rolls back.
 */
public class Orders {
  private final List<UUID> rolledBack = new CopyOnWriteArrayList<>();
  private final JdbcTemplate jdbc;
  private final ObjectProvider<EntityManager> entityManager;
  private final TransactionalOutbox outbox;

  public Orders(JdbcTemplate jdbc, ObjectProvider<EntityManager> entityManager, TransactionalOutbox outbox) {
    this.jdbc = jdbc;
    this.entityManager = entityManager;
    this.outbox = outbox;
  }

  @Transactional
  public UUID placeWithJdbc(String orderId, boolean fail) {
    jdbc.update("INSERT INTO spring_it_order (id, status) VALUES (?, 'PLACED')", orderId);
    return writeEvent(orderId, fail);
  }

  @Transactional
  public UUID placeWithJpa(String orderId, boolean fail) {
    entityManager.getObject().persist(new OrderEntity(orderId, "PLACED"));
    entityManager.getObject().flush();
    return writeEvent(orderId, fail);
  }

  /** Message ids of events written in transactions that then rolled back. */
  public List<UUID> rolledBack() {
    return List.copyOf(rolledBack);
  }

  private UUID writeEvent(String orderId, boolean fail) {
    UUID id = outbox.write(OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", orderId)
        .payload("{\"orderId\":\"" + orderId + "\"}").build());
    if (fail) {
      rolledBack.add(id);
      throw new IllegalStateException("business rule violated for " + orderId);
    }
    return id;
  }
}
