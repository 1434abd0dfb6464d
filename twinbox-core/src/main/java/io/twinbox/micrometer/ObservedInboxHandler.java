package io.twinbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import java.sql.Connection;
import java.util.Objects;

/**
 * An {@link InboxHandler} that runs the wrapped handler inside a Micrometer {@link Observation}:
 * with Micrometer's meter handler a timer per outcome, with Micrometer Tracing a consumer span that
 * continues the producer's trace (from the message's headers, as an {@link ObservedTransport} or
 * the OpenTelemetry module's {@code TracingTransport} wrote them) and is current while the handler
 * runs, so that events the handler writes to its own outbox capture it. Works with every consumer
 * adapter and with {@link io.twinbox.Inbox#process} called directly.
 *
 * <pre>{@code
 * InboxHandler handler = ObservedInboxHandler.wrap(this::apply, observationRegistry, "payments");
 * }</pre>
 *
 * <p>The handler runs only for messages the inbox has not seen, so duplicates get no observation.
 * A handler that throws stops the observation with the error and the exception is rethrown
 * unchanged. Names and keys: {@link DefaultProcessObservationConvention}. With {@link
 * ObservationRegistry#NOOP} the wrapped handler simply runs. Thread-safe when the wrapped handler
 * is.
 */
public final class ObservedInboxHandler implements InboxHandler {
  private static final ProcessObservationConvention DEFAULT = new DefaultProcessObservationConvention();

  private final InboxHandler delegate;
  private final ObservationRegistry registry;
  private final String consumer;
  private final ProcessObservationConvention convention;

  private ObservedInboxHandler(InboxHandler delegate, ObservationRegistry registry, String consumer,
      ProcessObservationConvention convention) {
    this.delegate = Objects.requireNonNull(delegate, "handler cannot be null");
    this.registry = Objects.requireNonNull(registry, "observationRegistry cannot be null");
    this.consumer = consumer;
    this.convention = convention;
  }

  /** Wraps {@code handler}; {@code consumer} (nullable) is the {@code twinbox.consumer} key's value. */
  public static ObservedInboxHandler wrap(InboxHandler handler, ObservationRegistry registry, String consumer) {
    return new ObservedInboxHandler(handler, registry, consumer, null);
  }

  /** As {@link #wrap(InboxHandler, ObservationRegistry, String)}, with a convention of its own. */
  public static ObservedInboxHandler wrap(InboxHandler handler, ObservationRegistry registry, String consumer,
      ProcessObservationConvention convention) {
    return new ObservedInboxHandler(handler, registry, consumer,
        Objects.requireNonNull(convention, "convention cannot be null"));
  }

  /** The wrapped handler. */
  public InboxHandler delegate() {
    return delegate;
  }

  @Override
  public void handle(Connection connection, InboxMessage message) throws Exception {
    if (registry.isNoop()) {
      delegate.handle(connection, message);
      return;
    }
    ProcessContext context = new ProcessContext(message, consumer);
    Observation observation = Observation.createNotStarted(convention, DEFAULT, () -> context, registry).start();
    try (Observation.Scope ignored = observation.openScope()) {
      delegate.handle(connection, message);
    } catch (Exception | Error e) {
      observation.error(e);
      throw e;
    } finally {
      observation.stop();
    }
  }
}
