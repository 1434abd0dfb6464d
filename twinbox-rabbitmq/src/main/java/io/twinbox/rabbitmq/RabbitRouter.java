package io.twinbox.rabbitmq;

import io.twinbox.rabbitmq.internal.Routers;
import io.twinbox.spi.OutboxMessage;

/**
 * Chooses the exchange and routing key of each outbox message.
 *
 * <p>The default, {@link #byAggregateType()}, publishes each aggregate type to a topic exchange of
 * its own with the event type as routing key, so a consumer binds its queue to the types it wants
 * ({@code "OrderPlaced"}, or {@code "#"} for all). The routing key is the type rather than the
 * aggregate id because bindings select by kind of event; per-aggregate order holds within every
 * queue regardless, since one exchange feeds each queue in publish order.
 *
 * <p>A router that throws, or returns {@code null}, makes that message fail at once as
 * {@code REJECTED} with the reason. Implementations must be thread-safe and fast: they run on the
 * relay's threads for every message.
 */
@FunctionalInterface
public interface RabbitRouter {

  /** The destination of {@code message}; never {@code null}. */
  RabbitDestination route(OutboxMessage message);

  /**
   * The default router: exchange = the aggregate type lowercased, every character outside
   * {@code [a-z0-9._-]} replaced by {@code '-'} ({@code "Billing Invoice"} → {@code
   * billing-invoice}); routing key = the event type.
   */
  static RabbitRouter byAggregateType() {
    return Routers.BY_AGGREGATE_TYPE;
  }

  /** Every message to {@code exchange}, routing key = the event type. */
  static RabbitRouter fixed(String exchange) {
    return Routers.fixed(exchange);
  }

  /**
   * The default dead-letter router of a publisher routing with {@code main}: the event's exchange
   * followed by {@code .dlq}, the same routing key ({@code order} / {@code OrderPlaced} → {@code
   * order.dlq} / {@code OrderPlaced}). Declare that exchange and bind a queue to it.
   */
  static RabbitRouter deadLetters(RabbitRouter main) {
    java.util.Objects.requireNonNull(main, "main cannot be null");
    return new RabbitRouter() {
      @Override
      public RabbitDestination route(OutboxMessage message) {
        RabbitDestination to = main.route(message);
        return to == null ? null : new RabbitDestination(to.exchange() + ".dlq", to.routingKey());
      }

      @Override
      public String toString() {
        return "RabbitRouter.deadLetters(" + main + ")";
      }
    };
  }
}
