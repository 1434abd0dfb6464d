package io.twinbox.spring.nats;

import io.twinbox.InboxConsumer;
import io.twinbox.spring.TwinboxLifecycle;
import java.util.function.Supplier;

/**
 * The NATS JetStream inbox consumer as a lifecycle bean: it feeds the application's {@code
 * InboxHandler} bean from the durable consumer on {@code twinbox.nats.consumer.stream}, starts with
 * the context and, when the context stops, finishes its current transaction, gives back the
 * messages fetched but not done (nak) and leaves the durable consumer in place.
 */
public class TwinboxNatsInboxConsumer extends TwinboxLifecycle<InboxConsumer> {

  /** @param factory builds a new, unstarted consumer for each start of the context */
  public TwinboxNatsInboxConsumer(Supplier<InboxConsumer> factory) {
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
