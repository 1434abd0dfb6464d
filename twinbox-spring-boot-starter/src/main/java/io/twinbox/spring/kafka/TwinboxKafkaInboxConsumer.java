package io.twinbox.spring.kafka;

import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.spring.TwinboxLifecycle;
import java.util.function.Supplier;

/**
 * The Kafka inbox consumer as a lifecycle bean: it feeds the application's {@code InboxHandler}
 * bean from {@code twinbox.kafka.consumer.topics}, starts with the context and, when the context
 * stops, finishes its current transaction, commits its offsets and leaves the group.
 */
public class TwinboxKafkaInboxConsumer extends TwinboxLifecycle<KafkaInboxConsumer> {

  /** @param factory builds a new, unstarted consumer for each start of the context */
  public TwinboxKafkaInboxConsumer(Supplier<KafkaInboxConsumer> factory) {
    super(factory);
  }

  @Override
  protected void start(KafkaInboxConsumer consumer) {
    consumer.start();
  }

  /** The running consumer (its stats), or {@code null} when stopped. */
  public KafkaInboxConsumer consumer() {
    return current();
  }
}
