package io.twinbox.micrometer;

import io.micrometer.observation.transport.SenderContext;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an {@link ObservedTransport} observation knows about one publish attempt: the message, the
 * transport, and, once the broker answered, the outcome. Its carrier is the message's headers: a
 * tracing handler (Micrometer Tracing) writes the producer span's context there, and the message
 * goes out with it, so that the consumer continues the trace.
 */
public final class PublishContext extends SenderContext<Map<String, String>> {
  private final OutboxMessage message;
  private final String transport;
  private volatile PublishOutcome outcome;

  PublishContext(OutboxMessage message, String transport) {
    super((carrier, key, value) -> {
      if (carrier != null && key != null && value != null) {
        carrier.put(key, value);
      }
    });
    this.message = message;
    this.transport = transport;
    setCarrier(new LinkedHashMap<>(message.headers() == null ? Map.of() : message.headers()));
    setRemoteServiceName(transport);
  }

  /** The message as the relay handed it over (without what a tracing handler added). */
  public OutboxMessage message() {
    return message;
  }

  /** The transport's {@link io.twinbox.spi.Transport#name() name}, e.g. {@code kafka}. */
  public String transport() {
    return transport;
  }

  /** The broker's answer; null until it came (or when the send threw). */
  public PublishOutcome outcome() {
    return outcome;
  }

  void outcome(PublishOutcome outcome) {
    this.outcome = outcome;
  }
}
