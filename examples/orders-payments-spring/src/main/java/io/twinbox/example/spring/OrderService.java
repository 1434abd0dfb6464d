package io.twinbox.example.spring;

import io.twinbox.OutboxEvent;
import io.twinbox.spring.TransactionalOutbox;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The order service: stores each order with JPA and announces it with {@code OrderCreated} in the
 * same {@code @Transactional} method; applies Payment's answer through the inbox.
 */
@Service
public class OrderService {
  private final OrderRepository orders;
  private final TransactionalOutbox outbox;
  private final JdbcTemplate jdbc;

  public OrderService(OrderRepository orders, TransactionalOutbox outbox, JdbcTemplate jdbc) {
    this.orders = orders;
    this.outbox = outbox;
    this.jdbc = jdbc;
  }

  /** Stores a PENDING order and its {@code OrderCreated}; both commit, or neither. */
  @Transactional
  public String placeOrder(String customerId, long amountCents) {
    PurchaseOrder order = orders.save(new PurchaseOrder(UUID.randomUUID().toString(), customerId, amountCents));
    outbox.write(OutboxEvent.builder("OrderCreated", 1).aggregate("Order", order.getId())
        .payload(Json.object("orderId", order.getId(), "customerId", customerId, "amountCents", amountCents))
        .build());
    return order.getId();
  }

  /**
   * Like {@link #placeOrder} but fails after both writes, e.g. a validation that comes last: the
   * order and its event roll back together, and Payment never hears of it.
   */
  @Transactional
  public String placeOrderThenFail(String customerId, long amountCents) {
    String id = placeOrder(customerId, amountCents);
    throw new RejectedOrderException(id);
  }

  /**
   * Applies {@code PaymentCaptured}/{@code PaymentDeclined}: moves the order only from PENDING.
   * Called from the inbox handler, on the inbox's connection (JdbcTemplate joins it).
   */
  public void applyPayment(String orderId, boolean captured) {
    jdbc.update("UPDATE purchase_order SET status = ? WHERE id = ? AND status = 'PENDING'",
        captured ? "PAID" : "DECLINED", orderId);
  }

  /** The order was refused after it had been written; nothing of it was committed. */
  public static final class RejectedOrderException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String orderId;

    RejectedOrderException(String orderId) {
      super("order " + orderId + " rejected");
      this.orderId = orderId;
    }

    public String orderId() {
      return orderId;
    }
  }
}
