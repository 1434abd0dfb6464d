package io.twinbox.micrometer;

import io.micrometer.observation.transport.ReceiverContext;
import io.twinbox.InboxMessage;

/**
 * What an {@link ObservedInboxHandler} observation knows about one message the handler processes.
 * Its carrier is the message: a tracing handler (Micrometer Tracing) reads the producer's context
 * from the message's headers, so that the consumer span continues the producer's trace.
 */
public final class ProcessContext extends ReceiverContext<InboxMessage> {
  private final String consumer;

  ProcessContext(InboxMessage message, String consumer) {
    super((carrier, key) -> carrier == null ? null : carrier.headers().get(key));
    this.consumer = consumer;
    setCarrier(message);
  }

  /** The message handed to the handler. */
  public InboxMessage message() {
    return getCarrier();
  }

  /** The consumer (inbox) name given to the handler's decorator; null when none was given. */
  public String consumer() {
    return consumer;
  }
}
