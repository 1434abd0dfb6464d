package io.twinbox.spring.rabbitmq;

import io.twinbox.InboxConsumer;
import io.twinbox.spring.TwinboxLifecycle;
import io.twinbox.spring.internal.ConsumerGroup;
import java.util.List;
import java.util.function.Supplier;

/**
 * The RabbitMQ inbox consumers as one lifecycle bean: one per queue of {@code
 * twinbox.rabbitmq.consumer.queues}, each feeding the application's {@code InboxHandler} bean. They
 * start with the context and, when it stops, finish their current transaction, acknowledge what
 * committed and close their connections (unacknowledged deliveries go back to the queues).
 */
public class TwinboxRabbitInboxConsumer extends TwinboxLifecycle<ConsumerGroup<InboxConsumer>> {

  /** @param factory builds new, unstarted consumers (one per queue) for each start of the context */
  public TwinboxRabbitInboxConsumer(Supplier<List<InboxConsumer>> factory) {
    super(() -> new ConsumerGroup<>(factory.get()));
  }

  @Override
  protected void start(ConsumerGroup<InboxConsumer> consumers) {
    consumers.start(InboxConsumer::start);
  }

  /** The running consumers (their stats), one per queue, or an empty list when stopped. */
  public List<InboxConsumer> consumers() {
    ConsumerGroup<InboxConsumer> group = current();
    return group == null ? List.of() : group.members();
  }
}
