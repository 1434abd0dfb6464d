package io.twinbox.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.twinbox.InboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Which context the consumer span continues, and how a failing handler shows. */
class TracingInboxHandlerTest {
  static final String WRITER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  static final String PRODUCER = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

  static InboxMessage message(Map<String, String> headers, String traceparent) {
    return new InboxMessage("m-1", "OrderCreated", 1, "/orders", "Order", "o-1", 1, "{}", headers, "corr", "cause",
        traceparent, Instant.now(), "orders-0@5");
  }

  @Test
  void theHeadersContextIsTheParent() throws Exception {
    try (Tracing tracing = new Tracing()) {
      AtomicReference<SpanContext> current = new AtomicReference<>();
      TracingInboxHandler.wrap((c, m) -> current.set(Span.current().getSpanContext()), tracing.sdk)
          .handle(null, message(Map.of("traceparent", PRODUCER), WRITER));

      SpanData span = tracing.spans().get(0);
      assertThat(span.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
      assertThat(span.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
      assertThat(current.get().getSpanId()).isEqualTo(span.getSpanId());
      assertThat(span.getName()).isEqualTo("process");
    }
  }

  @Test
  void withoutHeadersTheWriteTimeContextIsTheParent() throws Exception {
    try (Tracing tracing = new Tracing()) {
      TracingInboxHandler.wrap((c, m) -> { }, tracing.sdk).handle(null, message(Map.of("tenant", "a"), WRITER));

      assertThat(tracing.spans().get(0).getParentSpanId()).isEqualTo("b7ad6b7169203331");
    }
  }

  @Test
  void withNoContextAtAllANewTraceStarts() throws Exception {
    try (Tracing tracing = new Tracing()) {
      TracingInboxHandler.wrap((c, m) -> { }, tracing.sdk).handle(null, message(Map.of(), null));

      assertThat(tracing.spans().get(0).getParentSpanId()).isEqualTo(SpanId.getInvalid());
    }
  }

  @Test
  void aFailingHandlerRethrowsTheSameExceptionAndTheSpanSaysError() throws Exception {
    try (Tracing tracing = new Tracing()) {
      IllegalStateException boom = new IllegalStateException("boom");
      TracingInboxHandler h = TracingInboxHandler.wrap((c, m) -> {
        throw boom;
      }, tracing.sdk);

      assertThatThrownBy(() -> h.handle(null, message(Map.of(), WRITER))).isSameAs(boom);
      SpanData span = tracing.spans().get(0);
      assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(span.getEvents()).anyMatch(e -> e.getName().equals("exception"));
    }
  }

  @Test
  void withoutAnSdkTheHandlerSimplyRuns() throws Exception {
    AtomicReference<InboxMessage> got = new AtomicReference<>();
    InboxMessage m = message(Map.of("traceparent", PRODUCER), WRITER);
    TracingInboxHandler.wrap((c, msg) -> got.set(msg), OpenTelemetry.noop()).handle(null, m);

    assertThat(got.get()).isSameAs(m);
  }
}
