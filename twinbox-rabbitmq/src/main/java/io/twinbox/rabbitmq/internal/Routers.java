package io.twinbox.rabbitmq.internal;

import io.twinbox.rabbitmq.RabbitDestination;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.spi.OutboxMessage;
import java.util.Locale;

/** The built-in routers. Stateless and thread-safe. */
public final class Routers {
  public static final RabbitRouter BY_AGGREGATE_TYPE = new RabbitRouter() {
    @Override
    public RabbitDestination route(OutboxMessage m) {
      return new RabbitDestination(exchangeName(m.aggregateType()), m.type());
    }

    @Override
    public String toString() {
      return "RabbitRouter.byAggregateType()";
    }
  };

  private Routers() {}

  public static RabbitRouter fixed(String exchange) {
    new RabbitDestination(exchange, ""); // validates
    return new RabbitRouter() {
      @Override
      public RabbitDestination route(OutboxMessage m) {
        return new RabbitDestination(exchange, m.type());
      }

      @Override
      public String toString() {
        return "RabbitRouter.fixed(" + exchange + ")";
      }
    };
  }

  /** {@code "Billing Invoice"} → {@code "billing-invoice"}. */
  public static String exchangeName(String aggregateType) {
    if (aggregateType == null || aggregateType.isBlank()) {
      throw new IllegalArgumentException("the default router needs an aggregateType");
    }
    String lower = aggregateType.toLowerCase(Locale.ROOT);
    StringBuilder name = new StringBuilder(lower.length());
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      boolean legal = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      name.append(legal ? c : '-');
    }
    return name.toString();
  }
}
