package io.twinbox.micrometer;

import io.micrometer.observation.transport.ReceiverContext;
import io.twinbox.spi.OutboxMessage;

/**
 * The context of the observation that resumes the writer's trace for one publish attempt: its
 * carrier is the outbox message, whose only propagated field is the W3C {@code traceparent}
 * captured when the event was written. A tracing handler reads it as the remote parent, and the
 * publish observation is this one's child, so the writer's request, each publish attempt and the
 * consumer's processing form one trace.
 */
public final class WrittenContext extends ReceiverContext<OutboxMessage> {
  private final String transport;

  WrittenContext(OutboxMessage message, String transport) {
    super((carrier, key) -> carrier != null && "traceparent".equals(key) ? carrier.traceparent() : null);
    this.transport = transport;
    setCarrier(message);
    setRemoteServiceName("outbox");
  }

  /** The message whose write-time trace is resumed. */
  public OutboxMessage message() {
    return getCarrier();
  }

  /** The transport's name. */
  public String transport() {
    return transport;
  }
}
