package io.twinbox.opentelemetry;

import static io.twinbox.opentelemetry.internal.MessagingAttributes.ERROR_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.PUBLISH_ATTEMPT;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.PUBLISH_OUTCOME;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The decorator's own rules, on an in-process transport that answers what it is told (the broker
 * round trip is in {@link KafkaTracingTest}).
 */
class TracingTransportTest {
  static final String WRITER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  /** Records what it was asked to send and answers with a fixed outcome. */
  static final class Answering implements Transport {
    final List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
    final PublishOutcome outcome;

    Answering(PublishOutcome outcome) {
      this.outcome = outcome;
    }

    @Override
    public String name() {
      return "rabbitmq";
    }

    @Override
    public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
      sent.add(message);
      return CompletableFuture.completedFuture(outcome);
    }

    @Override
    public void close() {}
  }

  static OutboxMessage message(String traceparent, Map<String, String> headers, int attempts) {
    return new OutboxMessage(1, UUID.randomUUID(), "Order", "o-1", 1, 0, "OrderCreated", 1, "{}", headers, null, null,
        traceparent, Instant.now(), Instant.now(), attempts, "/orders");
  }

  @Test
  void aRejectedPublishEndsTheSpanInError() throws Exception {
    try (Tracing tracing = new Tracing()) {
      Answering t = new Answering(PublishOutcome.rejected("no such exchange"));
      PublishOutcome o = TracingTransport.wrap(t, tracing.sdk).send(message(WRITER, Map.of(), 2)).get();

      assertThat(o.kind()).isEqualTo(PublishOutcome.Kind.REJECTED);
      SpanData span = tracing.spans().get(0);
      assertThat(span.getName()).isEqualTo("send");
      assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(span.getStatus().getDescription()).isEqualTo("no such exchange");
      assertThat(span.getAttributes().get(PUBLISH_OUTCOME)).isEqualTo("rejected");
      assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("rejected");
      assertThat(span.getAttributes().get(PUBLISH_ATTEMPT)).isEqualTo(3L);
      assertThat(span.getAttributes().get(SYSTEM)).isEqualTo("rabbitmq");
      assertThat(span.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    }
  }

  @SuppressWarnings("try") // the scope only makes the span current
  @Test
  void aMessageWrittenWithoutContextStartsANewTraceNotTheRelayThreads() throws Exception {
    try (Tracing tracing = new Tracing()) {
      Answering t = new Answering(PublishOutcome.acked());
      Span unrelated = tracing.sdk.getTracer("test").spanBuilder("relay thread").startSpan();
      try (Scope ignored = unrelated.makeCurrent()) {
        TracingTransport.wrap(t, tracing.sdk).send(message(null, Map.of("tenant", "acme"), 0)).get();
      } finally {
        unrelated.end();
      }
      SpanData producer = tracing.spans().stream().filter(s -> s.getName().equals("send")).findFirst().orElseThrow();
      assertThat(producer.getParentSpanId()).isEqualTo(SpanId.getInvalid());
      assertThat(producer.getTraceId()).isNotEqualTo(unrelated.getSpanContext().getTraceId());
      OutboxMessage sent = t.sent.get(0);
      assertThat(sent.headers()).containsEntry("tenant", "acme")
          .containsEntry("traceparent", Tracing.traceparent(producer));
      assertThat(sent.traceparent()).isNull();
    }
  }

  @Test
  void withoutAnSdkTheSameMessageIsPassedOn() throws Exception {
    Answering t = new Answering(PublishOutcome.acked());
    OutboxMessage m = message(WRITER, Map.of("tenant", "acme"), 0);

    PublishOutcome o = TracingTransport.wrap(t, OpenTelemetry.noop()).send(m).get();

    assertThat(o.kind()).isEqualTo(PublishOutcome.Kind.ACKED);
    assertThat(t.sent).containsExactly(m);
  }

  @Test
  void propagationWithoutAnSdkCarriesTheWritersContextOn() throws Exception {
    // No tracer, but W3C propagation configured: the writer's context travels as the header.
    Answering t = new Answering(PublishOutcome.acked());
    OpenTelemetry propagating = OpenTelemetry.propagating(
        ContextPropagators.create(W3CTraceContextPropagator.getInstance()));

    TracingTransport.wrap(t, propagating).send(message(WRITER, Map.of(), 0)).get();

    assertThat(t.sent.get(0).headers()).isEqualTo(Map.of("traceparent", WRITER));
  }
}
