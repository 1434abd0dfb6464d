package io.twinbox.example.spring;

import com.fasterxml.jackson.databind.JsonNode;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.UnprocessableMessageException;
import java.sql.Connection;
import org.springframework.stereotype.Component;

/**
 * The inbox listener: the starter's Kafka consumer runs it for each new message of the {@code
 * order} and {@code payment} topics, in the inbox's transaction; a redelivered message is skipped
 * by the inbox before it gets here.
 */
@Component
public class EventListener implements InboxHandler {
  private final PaymentService payments;
  private final OrderService orders;

  public EventListener(PaymentService payments, OrderService orders) {
    this.payments = payments;
    this.orders = orders;
  }

  @Override
  public void handle(Connection connection, InboxMessage message) throws Exception {
    JsonNode data = Json.parse(message.payload());
    switch (message.type()) {
      case "OrderCreated" -> payments.charge(data.get("orderId").asText(), data.get("customerId").asText(),
          data.get("amountCents").asLong(), message.id());
      case "PaymentCaptured" -> orders.applyPayment(data.get("orderId").asText(), true);
      case "PaymentDeclined" -> orders.applyPayment(data.get("orderId").asText(), false);
      default -> throw new UnprocessableMessageException("unknown event type " + message.type());
    }
  }
}
