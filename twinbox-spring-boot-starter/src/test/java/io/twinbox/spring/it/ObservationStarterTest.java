package io.twinbox.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.twinbox.OutboxEvent;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.spi.Transport;
import io.twinbox.spring.TransactionalOutbox;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationRegistryCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 19, acceptance 1: an application with the starter and Actuator, nothing else, gets
 * Twinbox's observations — timers {@code twinbox.relay.send} and {@code twinbox.inbox.handle} in
 * Actuator's metrics endpoint (what {@code /actuator/metrics} serves) and spans in a test tracer,
 * the consumer's span in the producer span's trace (its context travelled in the message's
 * headers through real RabbitMQ), and an event written inside a trace published and processed in
 * that trace. The application adds no Twinbox code for it.
 */
class ObservationStarterTest {
  private static final String WRITER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String WRITER_SPAN = "00f067aa0ba902b7";
  private static EffectDatabase db;
  private static RabbitItQueue rabbit;

  /** A test tracer, as an application's tracing bridge would register it. */
  @Configuration(proxyBeanMethods = false)
  static class TestTracing {
    @Bean
    SimpleTracer tracer() {
      return new SimpleTracer();
    }

    @Bean
    ObservationRegistryCustomizer<io.micrometer.observation.ObservationRegistry> tracing(SimpleTracer tracer) {
      Propagator propagator = new TraceparentPropagator(tracer);
      return registry -> registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
          new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
          new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
          new DefaultTracingObservationHandler(tracer)));
    }
  }

  @BeforeAll
  static void servers() throws Exception {
    rabbit = RabbitItQueue.declare("spring-obs");
    db = EffectDatabase.create();
  }

  @AfterAll
  static void cleanUp() throws Exception {
    if (rabbit != null) {
      rabbit.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void publishesAndHandledMessagesAreObservedAsTimersAndSpansOfOneTrace() {
    List<String> properties = new java.util.ArrayList<>(rabbit.properties("rabbit-obs"));
    properties.addAll(List.of("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=metrics"));
    try (ConfigurableApplicationContext app = BrokerItApplication.run(db, List.of(TestTracing.class), properties)) {
      assertThat(app.getBean(Transport.class)).as("the transport bean itself is left alone")
          .isInstanceOf(RabbitPublisher.class);
      Orders orders = app.getBean(Orders.class);
      Set<UUID> committed = EffectDatabase.placeOrders(orders, 10);
      // One event written inside the writer's trace (as Outbox.write captures the current span's context).
      TransactionalOutbox outbox = app.getBean(TransactionalOutbox.class);
      UUID traced = new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).execute(tx -> outbox.write(
          OutboxEvent.builder("OrderTraced", 1).aggregate("Order", "traced-1").payload("{}")
              .traceparent("00-" + WRITER_TRACE + "-" + WRITER_SPAN + "-01").build()));
      db.awaitEffects(committed);
      db.assertAppliedExactlyOnce(committed, orders.rolledBack());

      MetricsEndpoint metrics = app.getBean(MetricsEndpoint.class);
      assertThat(metrics.listNames().getNames()).contains("twinbox.relay.send", "twinbox.inbox.handle");
      Awaitility.await().until(() -> count(metrics, "twinbox.inbox.handle", "twinbox.outcome:success")
          >= committed.size());
      assertThat(count(metrics, "twinbox.relay.send", "twinbox.outcome:acked")).isGreaterThanOrEqualTo(committed.size());
      assertThat(count(metrics, "twinbox.relay.send", "twinbox.event.type:OrderPlaced"))
          .isGreaterThanOrEqualTo(committed.size());
      assertThat(count(metrics, "twinbox.inbox.handle", "twinbox.consumer:rabbit-obs"))
          .isGreaterThanOrEqualTo(committed.size());

      SimpleTracer tracer = app.getBean(SimpleTracer.class);
      List<SimpleSpan> sends = spans(tracer, "OrderPlaced send");
      List<SimpleSpan> handled = spans(tracer, "OrderPlaced process");
      assertThat(sends).hasSizeGreaterThanOrEqualTo(committed.size());
      assertThat(handled).hasSizeGreaterThanOrEqualTo(committed.size());
      assertThat(sends).allSatisfy(s -> assertThat(s.getKind()).isEqualTo(Span.Kind.PRODUCER));
      assertThat(handled).allSatisfy(s -> assertThat(s.getKind()).isEqualTo(Span.Kind.CONSUMER));
      Map<String, String> sendSpanByTrace = sends.stream()
          .collect(Collectors.toMap(SimpleSpan::getTraceId, SimpleSpan::getSpanId, (a, b) -> a));
      assertThat(handled).as("each consumer span continues a producer span's trace").allSatisfy(h -> {
        assertThat(sendSpanByTrace).containsKey(h.getTraceId());
        assertThat(h.getParentId()).isEqualTo(sendSpanByTrace.get(h.getTraceId()));
      });
      assertThat(handled).extracting(s -> s.getTags().get("messaging.message.id"))
          .containsAll(committed.stream().map(UUID::toString).toList());

      // The traced event: writer -> relay -> send -> process, one trace.
      Awaitility.await().until(() -> !spans(tracer, "OrderTraced process").isEmpty());
      SimpleSpan relay = single(tracer, "OrderTraced relay");
      SimpleSpan send = single(tracer, "OrderTraced send");
      SimpleSpan process = single(tracer, "OrderTraced process");
      assertThat(List.of(relay, send, process)).extracting(SimpleSpan::getTraceId).containsOnly(WRITER_TRACE);
      assertThat(relay.getParentId()).as("the relay span continues the writer's span").isEqualTo(WRITER_SPAN);
      assertThat(send.getParentId()).isEqualTo(relay.getSpanId());
      assertThat(process.getParentId()).isEqualTo(send.getSpanId());
      assertThat(process.getTags()).containsEntry("messaging.message.id", traced.toString());
    }
  }

  private static double count(MetricsEndpoint metrics, String name, String tag) {
    MetricsEndpoint.MetricDescriptor d = metrics.metric(name, List.of(tag));
    return d == null ? 0 : d.getMeasurements().stream().filter(s -> s.getStatistic().name().equals("COUNT"))
        .mapToDouble(MetricsEndpoint.Sample::getValue).sum();
  }

  private static SimpleSpan single(SimpleTracer tracer, String name) {
    List<SimpleSpan> found = spans(tracer, name);
    assertThat(found).as("spans named %s", name).hasSize(1);
    return found.get(0);
  }

  private static List<SimpleSpan> spans(SimpleTracer tracer, String name) {
    return tracer.getSpans().stream().filter(s -> name.equals(s.getName())).toList();
  }

  /** W3C traceparent in and out, enough for the test tracer (which ships no propagator). */
  static final class TraceparentPropagator implements Propagator {
    private final SimpleTracer tracer;

    TraceparentPropagator(SimpleTracer tracer) {
      this.tracer = tracer;
    }

    @Override
    public List<String> fields() {
      return List.of("traceparent");
    }

    @Override
    public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
      setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
    }

    @Override
    public <C> Span.Builder extract(C carrier, Getter<C> getter) {
      String header = getter.get(carrier, "traceparent");
      Span.Builder builder = tracer.spanBuilder();
      if (header == null || header.split("-").length != 4) {
        return builder;
      }
      String[] parts = header.split("-");
      return builder.setParent(tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build());
    }
  }
}
