package io.twinbox.spring.kafka;

import io.twinbox.InboxConsumer;
import io.twinbox.spring.TwinboxLifecycle;
import java.util.function.Supplier;

/**
 * The Kafka inbox consumer as a lifecycle bean: it feeds the application's {@code InboxHandler}
 * bean from {@code twinbox.kafka.consumer.topics}, starts with the context and, when the context
 * stops, finishes its current transaction, commits its offsets and leaves the group.
 */
public class TwinboxKafkaInboxConsumer extends TwinboxLifecycle<InboxConsumer> {

  /** @param factory builds a new, unstarted consumer for each start of the context */
  public TwinboxKafkaInboxConsumer(Supplier<InboxConsumer> factory) {
    super(factory);
  }

  @Override
  protected void start(InboxConsumer consumer) {
    consumer.start();
  }

  /** The running consumer (its stats), or {@code null} when stopped. */
  public InboxConsumer consumer() {
    return current();
  }
}
