package io.twinbox.opentelemetry;

import static io.twinbox.opentelemetry.internal.MessagingAttributes.AGGREGATE_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.BODY_SIZE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CAUSATION_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CONVERSATION_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.DESTINATION;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.ERROR_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_SOURCE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_SUBJECT;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.MESSAGE_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.OPERATION_NAME;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.OPERATION_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.PUBLISH_ATTEMPT;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.PUBLISH_OUTCOME;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SEQUENCE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SYSTEM;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.twinbox.opentelemetry.internal.HeaderCarrier;
import io.twinbox.opentelemetry.internal.MessagingAttributes;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A {@link Transport} that publishes every message inside an OpenTelemetry producer span and puts
 * that span's context on the wire, so that the consumer continues the trace.
 *
 * <pre>{@code
 * KafkaPublisher kafka = KafkaPublisher.builder(bootstrap).topicRouter(router).build();
 * Transport traced = TracingTransport.builder(kafka, openTelemetry)
 *     .destination(router::topicFor)   // optional: the messaging.destination.name attribute
 *     .build();
 * Relay relay = Relay.builder(store, traced).build();
 * }</pre>
 *
 * <p><b>The span.</b> One span of kind {@code PRODUCER} per publish attempt, named
 * {@code send <destination>} (or {@code send}), a <em>child</em> of the trace context captured when
 * the event was written ({@link OutboxMessage#traceparent()}), so that the writer's request, every
 * publish attempt and the consumer's processing form one trace; a message written without one
 * starts a new trace (never the relay thread's context). It ends when the broker has answered;
 * any outcome but {@code ACKED} sets the status to {@code ERROR}. Attributes: {@code
 * messaging.system} (the transport's {@link Transport#name()} unless set), {@code
 * messaging.operation.type}/{@code .name} = {@code send}, {@code messaging.destination.name} (when
 * a destination function is given), {@code messaging.message.id}, {@code
 * messaging.message.conversation_id} (the correlation id), {@code messaging.message.body.size},
 * {@code cloudevents.event_type}, {@code cloudevents.event_source}, {@code
 * cloudevents.event_subject} (the aggregate id), and {@code twinbox.aggregate.type}, {@code
 * twinbox.causation_id}, {@code twinbox.sequence}, {@code twinbox.publish.attempt}, {@code
 * twinbox.publish.outcome}.
 *
 * <p><b>The wire.</b> The application's propagators ({@code
 * openTelemetry.getPropagators()}, typically W3C {@code traceparent}/{@code tracestate} and {@code
 * baggage}) write the producer span's context as message headers, next to the user's headers,
 * which the transports carry under their own names. The CloudEvents {@code traceparent} extension
 * keeps the write-time context, as the CloudEvents distributed-tracing extension intends. With
 * {@link OpenTelemetry#noop()} (no SDK installed) nothing is added: the message goes out exactly as
 * it would without this class.
 *
 * <p>Thread-safe, as the wrapped transport must be. {@link #flush()} and {@link #close()} are
 * passed on.
 */
public final class TracingTransport implements Transport {
  private final Transport delegate;
  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final String system;
  private final Function<? super OutboxMessage, String> destination;

  private TracingTransport(Builder b) {
    this.delegate = b.transport;
    this.tracer = b.openTelemetry.getTracer(MessagingAttributes.SCOPE);
    this.propagator = b.openTelemetry.getPropagators().getTextMapPropagator();
    this.system = b.system != null ? b.system : b.transport.name();
    this.destination = b.destination;
  }

  /** Wraps {@code transport} with the defaults (no destination attribute). */
  public static TracingTransport wrap(Transport transport, OpenTelemetry openTelemetry) {
    return builder(transport, openTelemetry).build();
  }

  /** Starts a builder for a decorator of {@code transport}. */
  public static Builder builder(Transport transport, OpenTelemetry openTelemetry) {
    return new Builder(transport, openTelemetry);
  }

  /** The wrapped transport's name: tracing is not a transport of its own. */
  @Override
  public String name() {
    return delegate.name();
  }

  /**
   * Publishes {@code message} through the wrapped transport inside a producer span, with the span's
   * context added to its headers. Never throws more than the wrapped transport does.
   */
  @SuppressWarnings("try") // the scope only makes the span current
  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    Context parent = HeaderCarrier.fromTraceparent(Context.root(), message.traceparent());
    String dest = destinationOf(message);
    Span span = spanBuilder(message, dest).setParent(parent).startSpan();
    Context context = parent.with(span);

    Map<String, String> original = message.headers() == null ? Map.of() : message.headers();
    Map<String, String> headers = new LinkedHashMap<>(original);
    propagator.inject(context, headers, HeaderCarrier.SETTER);
    OutboxMessage traced = headers.equals(original) ? message : message.withHeaders(headers);

    CompletableFuture<PublishOutcome> sent;
    try (Scope ignored = context.makeCurrent()) {
      sent = delegate.send(traced);
    } catch (RuntimeException | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      span.end();
      throw e;
    }
    return sent.whenComplete((outcome, failure) -> {
      if (failure != null) {
        span.recordException(failure);
        span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
      } else if (outcome != null) {
        String kind = outcome.kind().name().toLowerCase(Locale.ROOT);
        span.setAttribute(PUBLISH_OUTCOME, kind);
        if (outcome.kind() != PublishOutcome.Kind.ACKED) {
          span.setAttribute(ERROR_TYPE, kind);
          span.setStatus(StatusCode.ERROR, outcome.reason() == null ? kind : outcome.reason());
        }
      }
      span.end();
    });
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public void close() {
    delegate.close();
  }

  private SpanBuilder spanBuilder(OutboxMessage m, String dest) {
    SpanBuilder b = tracer.spanBuilder(dest == null ? "send" : "send " + dest)
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute(SYSTEM, system)
        .setAttribute(OPERATION_TYPE, "send")
        .setAttribute(OPERATION_NAME, "send")
        .setAttribute(MESSAGE_ID, m.id().toString())
        .setAttribute(EVENT_TYPE, m.type())
        .setAttribute(SEQUENCE, m.sequence())
        .setAttribute(PUBLISH_ATTEMPT, m.attempts() + 1L);
    if (m.payload() != null) {
      b.setAttribute(BODY_SIZE, (long) m.payload().getBytes(StandardCharsets.UTF_8).length);
    }
    setIfPresent(b, DESTINATION, dest);
    setIfPresent(b, CONVERSATION_ID, m.correlationId());
    setIfPresent(b, CAUSATION_ID, m.causationId());
    setIfPresent(b, EVENT_SOURCE, m.source());
    setIfPresent(b, EVENT_SUBJECT, m.aggregateId());
    setIfPresent(b, AGGREGATE_TYPE, m.aggregateType());
    return b;
  }

  private String destinationOf(OutboxMessage m) {
    if (destination == null) {
      return null;
    }
    try {
      return destination.apply(m);
    } catch (RuntimeException e) {
      return null; // the transport's own router fails the publish with the reason
    }
  }

  private static void setIfPresent(SpanBuilder b, io.opentelemetry.api.common.AttributeKey<String> key, String v) {
    if (v != null) {
      b.setAttribute(key, v);
    }
  }

  /** Configures a {@link TracingTransport}. Not thread-safe. */
  public static final class Builder {
    private final Transport transport;
    private final OpenTelemetry openTelemetry;
    private String system;
    private Function<? super OutboxMessage, String> destination;

    Builder(Transport transport, OpenTelemetry openTelemetry) {
      this.transport = Objects.requireNonNull(transport, "transport cannot be null");
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry cannot be null");
    }

    /**
     * The {@code messaging.system} attribute. Default: the transport's {@link Transport#name()}
     * ({@code kafka}, {@code rabbitmq}, {@code nats}).
     */
    public Builder system(String system) {
      if (system == null || system.isBlank()) {
        throw new IllegalArgumentException("system must not be blank");
      }
      this.system = system;
      return this;
    }

    /**
     * Names each message's destination for the span name and {@code messaging.destination.name},
     * e.g. {@code router::topicFor} for Kafka. Default: none. It runs on the relay's threads for
     * every message: it must be fast and thread-safe; if it throws, the attribute is left out.
     */
    public Builder destination(Function<? super OutboxMessage, String> destination) {
      this.destination = Objects.requireNonNull(destination, "destination cannot be null");
      return this;
    }

    public TracingTransport build() {
      return new TracingTransport(this);
    }
  }
}
