package io.twinbox.opentelemetry;

import static io.twinbox.opentelemetry.internal.MessagingAttributes.AGGREGATE_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.BODY_SIZE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CAUSATION_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CONSUMER_GROUP;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CONVERSATION_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.DESTINATION;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.ERROR_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_SOURCE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_SUBJECT;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.MESSAGE_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.OPERATION_NAME;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.OPERATION_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.ORIGIN;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SEQUENCE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SYSTEM;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.opentelemetry.internal.HeaderCarrier;
import io.twinbox.opentelemetry.internal.MessagingAttributes;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Objects;

/**
 * An {@link InboxHandler} that runs the wrapped handler inside an OpenTelemetry consumer span,
 * continuing the producer's trace. Works with every consumer adapter ({@code KafkaInboxConsumer},
 * {@code RabbitInboxConsumer}, {@code NatsInboxConsumer}) and with {@link io.twinbox.Inbox#process}
 * called directly, since they all hand the handler an {@link InboxMessage}.
 *
 * <pre>{@code
 * InboxHandler handler = TracingInboxHandler.builder(openTelemetry)
 *     .system("kafka").destination("orders").consumerGroup("payments")   // all optional
 *     .wrap(this::applyOrderCreated);
 * KafkaInboxConsumer.builder(bootstrap, "payments").topics("orders").inbox(inbox, dataSource)
 *     .handler(handler).build().start();
 * }</pre>
 *
 * <p><b>The parent.</b> The context the message's headers carry, read with the application's
 * propagators: the producer span of a {@link TracingTransport}. When the headers carry none (the
 * relay does not trace), the CloudEvents {@code traceparent} extension, i.e. the context captured
 * when the event was written, is the parent; with neither the span starts a new trace.
 *
 * <p><b>The span.</b> Kind {@code CONSUMER}, named {@code process <destination>} (or {@code
 * process}), current while the handler runs, so that events the handler writes to its own outbox
 * capture it and the trace goes on to the next service. A handler that throws marks it {@code
 * ERROR} with the exception recorded. Attributes: {@code messaging.system}, {@code
 * messaging.destination.name}, {@code messaging.consumer.group.name} (each when configured),
 * {@code messaging.operation.type}/{@code .name} = {@code process}, {@code messaging.message.id},
 * {@code messaging.message.conversation_id} (the correlation id), {@code
 * messaging.message.body.size}, {@code cloudevents.event_type}, {@code cloudevents.event_source},
 * {@code cloudevents.event_subject}, {@code twinbox.aggregate.type}, {@code twinbox.causation_id},
 * {@code twinbox.sequence}, {@code twinbox.message.origin}.
 *
 * <p>The handler runs only for messages the inbox has not seen, so duplicates get no span. A span
 * that ended well says the handler returned, not that its transaction committed: a later message
 * of the same batch may still roll the batch back, and the message is then handled (and traced)
 * again. With {@link OpenTelemetry#noop()} the wrapped handler simply runs. Thread-safe when the
 * wrapped handler is.
 */
public final class TracingInboxHandler implements InboxHandler {
  private final InboxHandler delegate;
  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final String system;
  private final String destination;
  private final String consumerGroup;

  private TracingInboxHandler(InboxHandler delegate, Builder b) {
    this.delegate = delegate;
    this.tracer = b.openTelemetry.getTracer(MessagingAttributes.SCOPE);
    this.propagator = b.openTelemetry.getPropagators().getTextMapPropagator();
    this.system = b.system;
    this.destination = b.destination;
    this.consumerGroup = b.consumerGroup;
  }

  /** Wraps {@code handler} with the defaults (no system, destination or group attributes). */
  public static TracingInboxHandler wrap(InboxHandler handler, OpenTelemetry openTelemetry) {
    return builder(openTelemetry).wrap(handler);
  }

  /** Starts a builder; {@link Builder#wrap} makes the handler. */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /** Runs the wrapped handler inside a consumer span; rethrows what it throws, unchanged. */
  @SuppressWarnings("try") // the scope only makes the span current
  @Override
  public void handle(Connection connection, InboxMessage message) throws Exception {
    Context parent = HeaderCarrier.extract(propagator, message.headers(), message.traceparent());
    Span span = spanBuilder(message).setParent(parent).startSpan();
    try (Scope ignored = parent.with(span).makeCurrent()) {
      delegate.handle(connection, message);
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setAttribute(ERROR_TYPE, e.getClass().getName());
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  private SpanBuilder spanBuilder(InboxMessage m) {
    SpanBuilder b = tracer.spanBuilder(destination == null ? "process" : "process " + destination)
        .setSpanKind(SpanKind.CONSUMER)
        .setAttribute(OPERATION_TYPE, "process")
        .setAttribute(OPERATION_NAME, "process")
        .setAttribute(MESSAGE_ID, m.id())
        .setAttribute(EVENT_TYPE, m.type())
        .setAttribute(SEQUENCE, m.sequence())
        .setAttribute(BODY_SIZE, (long) m.payload().getBytes(StandardCharsets.UTF_8).length);
    setIfPresent(b, SYSTEM, system);
    setIfPresent(b, DESTINATION, destination);
    setIfPresent(b, CONSUMER_GROUP, consumerGroup);
    setIfPresent(b, CONVERSATION_ID, m.correlationId());
    setIfPresent(b, CAUSATION_ID, m.causationId());
    setIfPresent(b, EVENT_SOURCE, m.source());
    setIfPresent(b, EVENT_SUBJECT, m.aggregateId());
    setIfPresent(b, AGGREGATE_TYPE, m.aggregateType());
    setIfPresent(b, ORIGIN, m.origin());
    return b;
  }

  private static void setIfPresent(SpanBuilder b, AttributeKey<String> key, String value) {
    if (value != null) {
      b.setAttribute(key, value);
    }
  }

  /** Configures a {@link TracingInboxHandler}. Not thread-safe; every setting is optional. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private String system;
    private String destination;
    private String consumerGroup;

    Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry cannot be null");
    }

    /** The {@code messaging.system} attribute, e.g. {@code kafka}. */
    public Builder system(String system) {
      this.system = requireText("system", system);
      return this;
    }

    /** The topic, queue or stream consumed: the span name and {@code messaging.destination.name}. */
    public Builder destination(String destination) {
      this.destination = requireText("destination", destination);
      return this;
    }

    /** The {@code messaging.consumer.group.name} attribute, typically the inbox's consumer name. */
    public Builder consumerGroup(String consumerGroup) {
      this.consumerGroup = requireText("consumerGroup", consumerGroup);
      return this;
    }

    /** The traced handler around {@code handler}. */
    public TracingInboxHandler wrap(InboxHandler handler) {
      return new TracingInboxHandler(Objects.requireNonNull(handler, "handler cannot be null"), this);
    }

    private static String requireText(String name, String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return value;
    }
  }
}
