package io.twinbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Transport} that publishes every message inside a Micrometer {@link Observation}: with
 * Micrometer's meter handler a timer per outcome, with Micrometer Tracing a producer span whose
 * context goes out in the message's headers. The Micrometer counterpart of the OpenTelemetry
 * module's {@code TracingTransport}; use one of the two.
 *
 * <pre>{@code
 * Relay relay = Relay.builder(store, ObservedTransport.wrap(kafka, observationRegistry)).build();
 * }</pre>
 *
 * <p>One observation per publish attempt, started before the send and stopped when the broker
 * answered; any outcome but {@code ACKED} is recorded as the observation's error. Names and keys:
 * {@link DefaultPublishObservationConvention}. An event written with a trace context (its {@link
 * OutboxMessage#traceparent()}) gets, around that, an observation {@value #WRITTEN} ({@link
 * WrittenContext}, contextual name {@code <type> relay}) whose remote parent is that context: the
 * Observation API gives a sender no remote parent of its own, so the producer span is the child of
 * this one, and the writer's request, every publish attempt and the consumer's {@link
 * ObservedInboxHandler} span form one trace. Without a write-time context the producer span's parent
 * is the relay thread's current observation, normally none. With {@link ObservationRegistry#NOOP}
 * the message goes out unchanged. Thread-safe, as the wrapped transport must be; {@link #flush}, {@link #close} and
 * {@link #deadLetters} are passed on.
 */
public final class ObservedTransport implements Transport {
  private static final PublishObservationConvention DEFAULT = new DefaultPublishObservationConvention();
  /** The name of the observation that resumes the writer's trace. */
  public static final String WRITTEN = "twinbox.relay.written";

  private final Transport delegate;
  private final ObservationRegistry registry;
  private final PublishObservationConvention convention;

  private ObservedTransport(Transport delegate, ObservationRegistry registry, PublishObservationConvention convention) {
    this.delegate = Objects.requireNonNull(delegate, "transport cannot be null");
    this.registry = Objects.requireNonNull(registry, "observationRegistry cannot be null");
    this.convention = convention;
  }

  /** Wraps {@code transport} with the {@linkplain DefaultPublishObservationConvention default convention}. */
  public static ObservedTransport wrap(Transport transport, ObservationRegistry registry) {
    return new ObservedTransport(transport, registry, null);
  }

  /** Wraps {@code transport}; {@code convention} replaces the default names and keys. */
  public static ObservedTransport wrap(Transport transport, ObservationRegistry registry,
      PublishObservationConvention convention) {
    return new ObservedTransport(transport, registry, Objects.requireNonNull(convention, "convention cannot be null"));
  }

  /** The wrapped transport. */
  public Transport delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    if (registry.isNoop()) {
      return delegate.send(message);
    }
    Observation written = writtenTrace(message);
    PublishContext context = new PublishContext(message, delegate.name());
    Observation observation = Observation.createNotStarted(convention, DEFAULT, () -> context, registry);
    if (written != null) {
      observation.parentObservation(written);
    }
    observation.start();
    Map<String, String> headers = context.getCarrier();
    OutboxMessage sent = headers.equals(message.headers() == null ? Map.of() : message.headers())
        ? message : message.withHeaders(headers);
    CompletableFuture<PublishOutcome> future;
    try (Observation.Scope ignored = observation.openScope()) {
      future = delegate.send(sent);
    } catch (RuntimeException | Error e) {
      observation.error(e);
      observation.stop();
      stop(written);
      throw e;
    }
    return future.whenComplete((outcome, failure) -> {
      if (failure != null) {
        observation.error(failure);
      } else if (outcome != null) {
        context.outcome(outcome);
        if (outcome.kind() != PublishOutcome.Kind.ACKED) {
          observation.error(new PublishNotAcknowledged(outcome));
        }
      }
      observation.stop();
      stop(written);
    });
  }

  /** The observation resuming the write-time trace, started; null when the event was written without one. */
  private Observation writtenTrace(OutboxMessage message) {
    if (message.traceparent() == null) {
      return null;
    }
    WrittenContext context = new WrittenContext(message, delegate.name());
    return Observation.createNotStarted(WRITTEN, () -> context, registry)
        .contextualName(message.type() + " relay")
        .lowCardinalityKeyValue("messaging.system", delegate.name())
        .lowCardinalityKeyValue("twinbox.event.type", message.type())
        .highCardinalityKeyValue("messaging.message.id", String.valueOf(message.id()))
        .start();
  }

  private static void stop(Observation written) {
    if (written != null) {
      written.stop();
    }
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public Optional<DeadLetterTransport> deadLetters() {
    return delegate.deadLetters();
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** The error an observation records for a broker answer other than ACKED (never thrown). */
  public static final class PublishNotAcknowledged extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PublishNotAcknowledged(PublishOutcome outcome) {
      super(outcome.kind() + (outcome.reason() == null ? "" : ": " + outcome.reason()), null, false, false);
    }
  }
}
