package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.twinbox.InboxMessage;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The Observation decorators: one observation per publish attempt and per handled message, with
 * the documented names and keys, a timer per outcome through Micrometer's meter handler, the
 * sender's carrier going out as message headers and the receiver's read from them (what a tracing
 * handler does), and errors recorded without changing what the relay or the inbox sees.
 */
class ObservationsTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  /** What Micrometer Tracing's propagating handlers do, without a tracer: inject on send, extract on receive. */
  static final class Propagating implements ObservationHandler<Observation.Context> {
    final List<String> extracted = new ArrayList<>();
    final List<Object> sendParents = new ArrayList<>();

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void onStart(Observation.Context context) {
      if (context instanceof SenderContext sender) {
        sender.getSetter().set(sender.getCarrier(), "traceparent", TRACEPARENT);
        sendParents.add(context.getParentObservation() == null ? "none"
            : context.getParentObservation().getContextView());
      } else if (context instanceof ReceiverContext receiver) {
        extracted.add(String.valueOf(receiver.getGetter().get(receiver.getCarrier(), "traceparent")));
      }
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  @Test
  void aPublishIsObservedPerAttemptWithItsOutcomeAndCarriesTheContextInItsHeaders() throws Exception {
    TestObservationRegistry registry = TestObservationRegistry.create();
    MeterRegistry meters = new SimpleMeterRegistry();
    registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters))
        .observationHandler(new Propagating());
    RecordingTransport broker = RecordingTransport.acking()
        .failWhen(m -> m.aggregateId().equals("o-2"), PublishOutcome.rejected("no such topic"));
    ObservedTransport observed = ObservedTransport.wrap(broker, registry);

    assertThat(observed.send(message("o-1", Map.of("tenant", "acme"))).get().kind()).isEqualTo(PublishOutcome.Kind.ACKED);
    assertThat(observed.send(message("o-2", Map.of())).get().kind()).isEqualTo(PublishOutcome.Kind.REJECTED);

    assertThat(broker.acked()).singleElement().satisfies(m -> assertThat(m.headers())
        .containsEntry("tenant", "acme").containsEntry("traceparent", TRACEPARENT));
    TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("twinbox.relay.send", 2)
        .hasAnObservation(o -> o.hasContextualNameEqualTo("OrderPlaced send")
            .hasLowCardinalityKeyValue("messaging.system", broker.name())
            .hasLowCardinalityKeyValue("twinbox.event.type", "OrderPlaced")
            .hasLowCardinalityKeyValue("twinbox.aggregate.type", "Order")
            .hasLowCardinalityKeyValue("twinbox.outcome", "acked")
            .hasHighCardinalityKeyValue("twinbox.aggregate.id", "o-1")
            .hasHighCardinalityKeyValue("twinbox.publish.attempt", "1")
            .doesNotHaveError())
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("twinbox.outcome", "rejected").hasError());
    Timer acked = meters.find("twinbox.relay.send").tag("twinbox.outcome", "acked").timer();
    Timer rejected = meters.find("twinbox.relay.send").tag("twinbox.outcome", "rejected").timer();
    assertThat(acked).isNotNull();
    assertThat(acked.count()).isEqualTo(1);
    assertThat(rejected).isNotNull();
    assertThat(rejected.count()).isEqualTo(1);
  }

  @Test
  void anEventWrittenWithATraceContextIsPublishedAsAChildOfTheObservationThatResumesIt() throws Exception {
    TestObservationRegistry registry = TestObservationRegistry.create();
    Propagating propagating = new Propagating();
    registry.observationConfig().observationHandler(propagating);
    RecordingTransport broker = RecordingTransport.acking();
    ObservedTransport observed = ObservedTransport.wrap(broker, registry);
    String written = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    OutboxMessage traced = message("o-1", Map.of());
    traced = new OutboxMessage(traced.position(), traced.id(), traced.aggregateType(), traced.aggregateId(),
        traced.sequence(), traced.partition(), traced.type(), traced.version(), traced.payload(), traced.headers(),
        traced.correlationId(), traced.causationId(), written, traced.occurredAt(), traced.createdAt(),
        traced.attempts(), traced.source());

    observed.send(traced).get();
    observed.send(message("o-2", Map.of())).get();

    assertThat(propagating.extracted).as("the write-time context read as the remote parent").containsExactly(written);
    assertThat(propagating.sendParents).hasSize(2);
    assertThat(propagating.sendParents.get(0)).isInstanceOfSatisfying(WrittenContext.class,
        w -> assertThat(w.message().id()).isEqualTo(broker.acked().get(0).id()));
    assertThat(propagating.sendParents.get(1)).as("written without a context: no parent").isEqualTo("none");
    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo(ObservedTransport.WRITTEN, 1)
        .hasNumberOfObservationsWithNameEqualTo("twinbox.relay.send", 2)
        .hasAnObservation(o -> o.hasNameEqualTo(ObservedTransport.WRITTEN).hasContextualNameEqualTo("OrderPlaced relay")
            .hasLowCardinalityKeyValue("twinbox.event.type", "OrderPlaced"));
  }

  @Test
  void aHandledMessageIsObservedWithTheProducersContextAndAThrowingHandlerIsRecordedAndRethrown() throws Exception {
    TestObservationRegistry registry = TestObservationRegistry.create();
    MeterRegistry meters = new SimpleMeterRegistry();
    Propagating propagating = new Propagating();
    registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters))
        .observationHandler(propagating);
    List<String> handled = new ArrayList<>();
    ObservedInboxHandler handler = ObservedInboxHandler.wrap((c, m) -> {
      assertThat(registry.getCurrentObservation()).as("current while the handler runs").isNotNull();
      if (m.aggregateId().equals("bad")) {
        throw new IllegalStateException("refused");
      }
      handled.add(m.id());
    }, registry, "payments");

    handler.handle(null, inbound("m-1", "o-1", Map.of("traceparent", TRACEPARENT)));
    assertThatThrownBy(() -> handler.handle(null, inbound("m-2", "bad", Map.of())))
        .isInstanceOf(IllegalStateException.class).hasMessage("refused");

    assertThat(handled).containsExactly("m-1");
    assertThat(propagating.extracted).containsExactly(TRACEPARENT, "null");
    TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("twinbox.inbox.handle", 2)
        .hasAnObservation(o -> o.hasContextualNameEqualTo("OrderPlaced process")
            .hasLowCardinalityKeyValue("twinbox.consumer", "payments")
            .hasLowCardinalityKeyValue("twinbox.outcome", "success")
            .hasHighCardinalityKeyValue("messaging.message.id", "m-1"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("twinbox.outcome", "error").hasError());
    assertThat(meters.find("twinbox.inbox.handle").tag("twinbox.outcome", "error").timer().count()).isEqualTo(1);
  }

  @Test
  void withTheNoopRegistryNothingChanges() throws Exception {
    RecordingTransport broker = RecordingTransport.acking();
    OutboxMessage m = message("o-1", Map.of("tenant", "acme"));
    ObservedTransport.wrap(broker, io.micrometer.observation.ObservationRegistry.NOOP).send(m).get();
    assertThat(broker.acked()).containsExactly(m);
  }

  private static OutboxMessage message(String aggregate, Map<String, String> headers) {
    return new OutboxMessage(1, UUID.randomUUID(), "Order", aggregate, 1, 0, "OrderPlaced", 1, "{}", headers, "corr-1",
        null, null, Instant.now(), Instant.now(), 0, "/orders");
  }

  private static InboxMessage inbound(String id, String aggregate, Map<String, String> headers) {
    return new InboxMessage(id, "OrderPlaced", 1, "/orders", "Order", aggregate, 1, "{}", headers, null, null, null,
        null, "kafka");
  }
}
