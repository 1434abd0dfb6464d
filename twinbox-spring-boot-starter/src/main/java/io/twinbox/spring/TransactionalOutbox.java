package io.twinbox.spring;

import io.twinbox.NoActiveTransactionException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes outbox events in the current Spring transaction: on the JDBC connection that
 * {@code DataSourceTransactionManager} or {@code JpaTransactionManager} (with Hibernate) has bound
 * to the application's {@link DataSource}. The event commits or rolls back with everything else
 * the transaction does, through {@code JdbcTemplate}, {@code JdbcClient} or JPA alike.
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *   orders.save(order);                                    // JPA
 *   outbox.write(OutboxEvent.builder("OrderCreated", 1)
 *       .aggregate("Order", order.getId().toString()).payload(json).build());
 * }
 * }</pre>
 *
 * <p>Inside an {@code InboxHandler} run by the starter's inbox consumers (Kafka, RabbitMQ, NATS), it
 * writes on the inbox's transaction. Anywhere else, without an active transaction, it refuses to
 * write. Thread-safe.
 */
public final class TransactionalOutbox {
  private final Outbox outbox;
  private final DataSource dataSource;

  /** @param dataSource the data source the transaction manager binds connections for */
  public TransactionalOutbox(Outbox outbox, DataSource dataSource) {
    this.outbox = Objects.requireNonNull(outbox, "outbox cannot be null");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
  }

  /**
   * Writes one event in the current transaction.
   *
   * @return the event's message id
   * @throws NoActiveTransactionException when no Spring transaction is active (nothing is written)
   * @see Outbox#write
   */
  public UUID write(OutboxEvent event) {
    Objects.requireNonNull(event, "event cannot be null");
    return withConnection(c -> outbox.write(c, event));
  }

  /**
   * Writes several events in one round trip, in the current transaction; ids in the same order.
   *
   * @throws NoActiveTransactionException when no Spring transaction is active (nothing is written)
   */
  public List<UUID> writeAll(List<OutboxEvent> events) {
    Objects.requireNonNull(events, "events cannot be null");
    return withConnection(c -> outbox.writeAll(c, events));
  }

  /** The outbox writing on the transaction's connection. */
  public Outbox outbox() {
    return outbox;
  }

  private <T> T withConnection(Function<Connection, T> write) {
    // A bound connection without an actual transaction is only a synchronization-scoped one
    // (PROPAGATION_SUPPORTS): it is in auto-commit mode, and Outbox.write refuses it too.
    if (!TransactionSynchronizationManager.isActualTransactionActive()
        && !TransactionSynchronizationManager.hasResource(dataSource)) {
      throw new NoActiveTransactionException("outbox write (no Spring transaction is active: call it from a"
          + " @Transactional method or a TransactionTemplate)");
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      return write.apply(connection);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }
}
