package io.twinbox.example.spring;

import io.twinbox.OutboxEvent;
import io.twinbox.spring.TransactionalOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * The payment service: for each {@code OrderCreated}, debits the wallet if the balance suffices,
 * records the payment keyed by the order, and answers {@code PaymentCaptured} or {@code
 * PaymentDeclined} through the outbox. Runs inside the inbox's transaction: JdbcTemplate and the
 * TransactionalOutbox join it, so effect, inbox record and answer commit together.
 */
@Service
public class PaymentService {
  private final JdbcTemplate jdbc;
  private final TransactionalOutbox outbox;

  public PaymentService(JdbcTemplate jdbc, TransactionalOutbox outbox) {
    this.jdbc = jdbc;
    this.outbox = outbox;
  }

  public void charge(String orderId, String customerId, long amountCents, String causationId) {
    // The payment row first: a second OrderCreated for the same order (a new message id) changes nothing.
    int fresh = jdbc.update("INSERT INTO payment (order_id, customer_id, amount_cents, captured) VALUES (?, ?, ?, false)"
        + " ON CONFLICT (order_id) DO NOTHING", orderId, customerId, amountCents);
    if (fresh == 0) {
      return;
    }
    boolean captured = jdbc.update("UPDATE wallet SET balance_cents = balance_cents - ? WHERE customer_id = ?"
        + " AND balance_cents >= ?", amountCents, customerId, amountCents) == 1;
    if (captured) {
      jdbc.update("UPDATE payment SET captured = true WHERE order_id = ?", orderId);
    }
    outbox.write(OutboxEvent.builder(captured ? "PaymentCaptured" : "PaymentDeclined", 1)
        .aggregate("Payment", orderId)
        .payload(Json.object("orderId", orderId, "amountCents", amountCents))
        .causationId(causationId)
        .build());
  }
}
