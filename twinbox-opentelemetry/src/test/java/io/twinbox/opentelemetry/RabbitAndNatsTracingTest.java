package io.twinbox.opentelemetry;

import io.twinbox.InboxConsumer;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.DESTINATION;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.MESSAGE_ID;
import static io.twinbox.opentelemetry.internal.MessagingAttributes.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Nats;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
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
import io.twinbox.nats.NatsInboxConsumer;
import io.twinbox.nats.NatsPublisher;
import io.twinbox.nats.NatsStreams;
import io.twinbox.rabbitmq.RabbitInboxConsumer;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.rabbitmq.RabbitRouter;
import io.twinbox.rabbitmq.RabbitTopology;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same trace on the other two brokers: their bindings carry the {@code traceparent} header as a
 * user header (AMQP application header, NATS header), and their consumer adapters hand it to the
 * handler unchanged.
 */
class RabbitAndNatsTracingTest {
  static final String HOST = "127.0.0.1";
  static PostgresDatabase db;
  static JdbcStore store;

  @BeforeAll
  static void setUp() throws Exception {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
  }

  @AfterAll
  static void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void rabbitMq() throws Exception {
    LocalServers.require("RabbitMQ", HOST, 5672);
    String exchange = "tb-trace." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology topology = RabbitTopology.builder(exchange).queue(exchange + ".q").build();
    com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
    factory.setHost(HOST);
    factory.setPort(5672);
    try (com.rabbitmq.client.Connection admin = factory.newConnection("twinbox-tracing-test")) {
      topology.declare(admin);
      try {
        assertOneTrace("rabbitmq", exchange, RabbitPublisher.builder(factory).router(RabbitRouter.fixed(exchange)).build(),
            (handler) -> {
              Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "trace-" + exchange).build();
              InboxConsumer c = RabbitInboxConsumer.builder(factory, topology.queue())
                  .inbox(inbox, db.dataSource()).handler(handler).build();
              c.start();
              return c;
            });
      } finally {
        topology.delete(admin);
      }
    }
  }

  @Test
  void natsJetStream() throws Exception {
    LocalServers.require("NATS", HOST, 4222);
    String name = "trace" + UUID.randomUUID().toString().substring(0, 8);
    String stream = "TB_" + name.toUpperCase(java.util.Locale.ROOT);
    String url = "nats://" + HOST + ":4222";
    try (io.nats.client.Connection admin = Nats.connect(url)) {
      NatsStreams.ensure(admin, stream, "tb." + name + ".>");
      try {
        assertOneTrace("nats", "tb." + name + ".OrderCreated",
            NatsPublisher.builder(url).subjectRouter(m -> "tb." + name + "." + m.type()).build(),
            (handler) -> {
              Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "trace-" + name).build();
              InboxConsumer c = NatsInboxConsumer.builder(url, stream, "trace-" + name)
                  .inbox(inbox, db.dataSource()).handler(handler).build();
              c.start();
              return c;
            });
      } finally {
        NatsStreams.delete(admin, stream);
      }
    }
  }

  /**
   * Writes one event inside a span, publishes it with a traced relay over {@code transport},
   * consumes it with a traced handler, and checks the trace: writer → producer → consumer.
   */
  @SuppressWarnings("try") // the scope only makes the span current
  private static void assertOneTrace(String system, String destination, Transport transport,
      Function<InboxHandler, AutoCloseable> startConsumer) throws Exception {
    try (Tracing tracing = new Tracing()) {
      Span request = tracing.sdk.getTracer("test").spanBuilder("POST /orders").startSpan();
      UUID id;
      try (Scope ignored = request.makeCurrent(); Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        id = Outbox.builder(store).build().write(c, OutboxEvent.builder("OrderCreated", 1)
            .aggregate("Order", "o-" + system).payload("{}").header("tenant", "acme").build());
        c.commit();
      } finally {
        request.end();
      }
      List<InboxMessage> seen = new CopyOnWriteArrayList<>();
      Transport traced = TracingTransport.builder(transport, tracing.sdk).destination(m -> destination).build();
      try (Relay relay = Relay.builder(store, traced).pollInterval(Duration.ofMillis(100)).build();
          AutoCloseable consumer = startConsumer.apply(TracingInboxHandler.builder(tracing.sdk).system(system)
              .destination(destination).wrap((c, m) -> seen.add(m)))) {
        relay.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> !seen.isEmpty());
      } finally {
        traced.close();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> tracing.spans().size() >= 3);

      List<SpanData> spans = tracing.spans();
      SpanData writer = spans.stream().filter(s -> s.getName().equals("POST /orders")).findFirst().orElseThrow();
      SpanData producer = spans.stream().filter(s -> s.getKind() == SpanKind.PRODUCER).findFirst().orElseThrow();
      SpanData consumer = spans.stream().filter(s -> s.getKind() == SpanKind.CONSUMER).findFirst().orElseThrow();
      assertThat(producer.getParentSpanId()).isEqualTo(writer.getSpanId());
      assertThat(consumer.getParentSpanId()).isEqualTo(producer.getSpanId());
      assertThat(consumer.getTraceId()).isEqualTo(writer.getTraceId());
      assertThat(producer.getAttributes().get(SYSTEM)).isEqualTo(system);
      assertThat(producer.getAttributes().get(DESTINATION)).isEqualTo(destination);
      assertThat(consumer.getAttributes().get(MESSAGE_ID)).isEqualTo(id.toString());
      InboxMessage m = seen.get(0);
      assertThat(m.headers()).containsEntry("tenant", "acme")
          .containsEntry("traceparent", Tracing.traceparent(producer));
      assertThat(m.traceparent()).isEqualTo(Tracing.traceparent(writer));
    }
  }
}
