package io.twinbox.opentelemetry;

import io.twinbox.InboxConsumer;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CONSUMER_GROUP;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.CONVERSATION_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.DESTINATION;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.EVENT_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.MESSAGE_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.OPERATION_TYPE;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.PUBLISH_OUTCOME;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaInboxConsumer;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * R20 end to end on real servers: an event written inside a span, published by a relay through a
 * real Kafka broker, consumed through the inbox — one trace from the writer to the handler; and
 * with no SDK, the same flow untouched.
 */
class KafkaTracingTest {
  static PostgresDatabase db;
  static JdbcStore store;
  static KafkaBroker broker;

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    broker = KafkaBroker.shared();
  }

  @AfterAll
  static void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  /** What the handler saw: the message and the span current while it ran. */
  record Seen(InboxMessage message, SpanContext current) {}

  @SuppressWarnings("try") // the scope only makes the span current
  @Test
  void oneTraceFromTheWriterThroughTheBrokerToTheHandler() throws Exception {
    String topic = "traced-" + UUID.randomUUID();
    broker.createTopic(topic, 2);
    try (Tracing tracing = new Tracing()) {
      SpanData writer;
      UUID id;
      Span request = tracing.sdk.getTracer("test").spanBuilder("POST /orders").startSpan();
      try (Scope ignored = request.makeCurrent()) {
        id = write(OutboxEvent.builder("OrderCreated", 1).aggregate("Order", "o-1").payload("{\"amount\":5}")
            .header("tenant", "acme").correlationId("corr-1").build());
      } finally {
        request.end();
      }
      writer = only(tracing.spans(), s -> s.getName().equals("POST /orders"));

      // The handler answers OrderCreated with PaymentCaptured, written to its outbox inside the
      // consumer span: the next service's hop must continue the same trace.
      List<Seen> seen = runFlow(topic, tracing.sdk, 2, (c, m) -> {
        if (m.type().equals("OrderCreated")) {
          Outbox.builder(store).build().write(c, OutboxEvent.builder("PaymentCaptured", 1).aggregate("Order", "o-1")
              .payload("{}").correlationId(m.correlationId()).causationId(m.id()).build());
        }
      });

      Seen got = seen.get(0);
      await().atMost(Duration.ofSeconds(10)).until(() -> tracing.spans().size() >= 5);
      List<SpanData> spans = tracing.spans();
      SpanData producer = only(spans, s -> s.getKind() == SpanKind.PRODUCER && isType(s, "OrderCreated"));
      SpanData consumer = only(spans, s -> s.getKind() == SpanKind.CONSUMER && isType(s, "OrderCreated"));
      SpanData answerProducer = only(spans, s -> s.getKind() == SpanKind.PRODUCER && isType(s, "PaymentCaptured"));
      SpanData answerConsumer = only(spans, s -> s.getKind() == SpanKind.CONSUMER && isType(s, "PaymentCaptured"));

      // One trace: writer -> producer (child) -> consumer (child).
      assertThat(producer.getTraceId()).isEqualTo(writer.getTraceId());
      assertThat(consumer.getTraceId()).isEqualTo(writer.getTraceId());
      assertThat(producer.getParentSpanId()).as("the producer span is the writer's child")
          .isEqualTo(writer.getSpanId());
      assertThat(consumer.getParentSpanId()).as("the consumer span is the producer's child")
          .isEqualTo(producer.getSpanId());
      assertThat(got.current().getSpanId()).as("the consumer span is current in the handler")
          .isEqualTo(consumer.getSpanId());
      assertThat(answerProducer.getParentSpanId()).as("the answer was written inside the consumer span")
          .isEqualTo(consumer.getSpanId());
      assertThat(answerConsumer.getParentSpanId()).isEqualTo(answerProducer.getSpanId());
      assertThat(answerConsumer.getTraceId()).as("one trace across both hops").isEqualTo(writer.getTraceId());
      assertThat(seen.get(1).message().causationId()).isEqualTo(id.toString());
      assertThat(seen.get(1).message().correlationId()).isEqualTo("corr-1");

      // Semantic-convention attributes.
      assertThat(producer.getName()).isEqualTo("send " + topic);
      assertThat(producer.getAttributes().get(SYSTEM)).isEqualTo("kafka");
      assertThat(producer.getAttributes().get(DESTINATION)).isEqualTo(topic);
      assertThat(producer.getAttributes().get(MESSAGE_ID)).isEqualTo(id.toString());
      assertThat(producer.getAttributes().get(OPERATION_TYPE)).isEqualTo("send");
      assertThat(producer.getAttributes().get(CONVERSATION_ID)).isEqualTo("corr-1");
      assertThat(producer.getAttributes().get(EVENT_TYPE)).isEqualTo("OrderCreated");
      assertThat(producer.getAttributes().get(PUBLISH_OUTCOME)).isEqualTo("acked");
      assertThat(producer.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
      assertThat(consumer.getName()).isEqualTo("process " + topic);
      assertThat(consumer.getAttributes().get(SYSTEM)).isEqualTo("kafka");
      assertThat(consumer.getAttributes().get(DESTINATION)).isEqualTo(topic);
      assertThat(consumer.getAttributes().get(CONSUMER_GROUP)).isEqualTo("payments-" + topic);
      assertThat(consumer.getAttributes().get(MESSAGE_ID)).isEqualTo(id.toString());
      assertThat(consumer.getAttributes().get(OPERATION_TYPE)).isEqualTo("process");
      assertThat(consumer.getAttributes().get(CONVERSATION_ID)).isEqualTo("corr-1");

      // The wire: the hop's context as W3C headers; the write-time context stays in the CloudEvent.
      InboxMessage m = got.message();
      assertThat(m.id()).isEqualTo(id.toString());
      assertThat(m.headers()).containsEntry("tenant", "acme")
          .containsEntry("traceparent", Tracing.traceparent(producer));
      assertThat(m.traceparent()).as("ce_traceparent: the context at write time").isEqualTo(Tracing.traceparent(writer));
      assertThat(m.correlationId()).isEqualTo("corr-1");
    }
  }

  @Test
  void withoutAnSdkTheMessageArrivesUntouched() throws Exception {
    String topic = "untraced-" + UUID.randomUUID();
    broker.createTopic(topic, 2);
    String given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    UUID id = write(OutboxEvent.builder("OrderCreated", 1).aggregate("Order", "o-2").payload("{\"amount\":7}")
        .header("tenant", "acme").correlationId("corr-2").traceparent(given).build());

    List<Seen> seen = runFlow(topic, OpenTelemetry.noop(), 1, (c, m) -> { });

    InboxMessage m = seen.get(0).message();
    assertThat(m.id()).isEqualTo(id.toString());
    assertThat(m.headers()).as("no header added, none lost").isEqualTo(Map.of("tenant", "acme"));
    assertThat(m.traceparent()).isEqualTo(given);
    assertThat(m.correlationId()).isEqualTo("corr-2");
    assertThat(m.payload().replace(" ", "")).as("the payload (PostgreSQL jsonb may respace it)").isEqualTo("{\"amount\":7}");
  }

  private static UUID write(OutboxEvent event) throws Exception {
    Outbox outbox = Outbox.builder(store).build();
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, event);
      c.commit();
      return id;
    }
  }

  /** A relay publishing to {@code topic} and a consumer of it, both traced, until {@code n} messages were handled. */
  private static List<Seen> runFlow(String topic, OpenTelemetry otel, int n, InboxHandler effect) throws Exception {
    List<Seen> seen = new CopyOnWriteArrayList<>();
    InboxHandler handler = (c, m) -> {
      effect.handle(c, m);
      seen.add(new Seen(m, Span.current().getSpanContext()));
    };
    TopicRouter router = TopicRouter.fixed(topic);
    Transport traced = TracingTransport.builder(KafkaPublisher.builder(broker.bootstrapServers())
        .topicRouter(router).build(), otel).destination(router::topicFor).build();
    String group = "payments-" + topic;
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), group).build();
    try (Relay relay = Relay.builder(store, traced).pollInterval(Duration.ofMillis(100)).build();
        InboxConsumer consumer = KafkaInboxConsumer.builder(broker.bootstrapServers(), group)
            .topics(topic).inbox(inbox, db.dataSource())
            .handler(TracingInboxHandler.builder(otel).system("kafka").destination(topic).consumerGroup(group)
                .wrap(handler))
            .build()) {
      relay.start();
      consumer.start();
      await().atMost(Duration.ofSeconds(90)).until(() -> seen.size() >= n);
    } finally {
      traced.close();
    }
    assertThat(seen).hasSize(n);
    return seen;
  }

  private static boolean isType(SpanData s, String type) {
    return type.equals(s.getAttributes().get(EVENT_TYPE));
  }

  private static SpanData only(List<SpanData> spans, java.util.function.Predicate<SpanData> p) {
    List<SpanData> match = spans.stream().filter(p).toList();
    assertThat(match).as("spans: %s", spans).hasSize(1);
    return match.get(0);
  }
}
