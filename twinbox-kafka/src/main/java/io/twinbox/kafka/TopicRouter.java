package io.twinbox.kafka;

import io.twinbox.kafka.internal.AggregateTypeRouter;
import io.twinbox.kafka.internal.FixedTopicRouter;
import io.twinbox.spi.OutboxMessage;

/**
 * Chooses the Kafka topic of each outbox message.
 *
 * <p>The default, {@link #byAggregateType()}, sends each aggregate type to its own topic. A router
 * that throws, or returns {@code null} or a blank name, makes that message fail at once as
 * {@code REJECTED} with the reason; so does a topic the broker reports as invalid. Implementations
 * must be thread-safe and fast: they run on the relay's threads for every message.
 *
 * <pre>{@code
 * TopicRouter router = m -> m.aggregateType().equals("Order") ? "orders.v" + m.version() : "events";
 * }</pre>
 */
@FunctionalInterface
public interface TopicRouter {

  /** The topic for {@code message}; never {@code null}. */
  String topicFor(OutboxMessage message);

  /**
   * The default router: the aggregate type, lowercased, with every character outside
   * {@code [a-z0-9._-]} replaced by {@code '-'}. {@code "Order"} goes to {@code order},
   * {@code "Billing Invoice"} to {@code billing-invoice}.
   */
  static TopicRouter byAggregateType() {
    return AggregateTypeRouter.INSTANCE;
  }

  /**
   * Sends every message to {@code topic}.
   *
   * @throws IllegalArgumentException unless {@code topic} is a legal Kafka topic name (1–249
   *     characters of {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..})
   */
  static TopicRouter fixed(String topic) {
    return new FixedTopicRouter(topic);
  }

  /**
   * The default dead-letter router of a publisher routing with {@code main}: the event's topic
   * followed by {@code .dlq} ({@code order} → {@code order.dlq}).
   */
  static TopicRouter deadLetters(TopicRouter main) {
    java.util.Objects.requireNonNull(main, "main cannot be null");
    return new TopicRouter() {
      @Override
      public String topicFor(OutboxMessage message) {
        String topic = main.topicFor(message);
        return topic == null ? null : topic + ".dlq";
      }

      @Override
      public String toString() {
        return "TopicRouter.deadLetters(" + main + ")";
      }
    };
  }
}
