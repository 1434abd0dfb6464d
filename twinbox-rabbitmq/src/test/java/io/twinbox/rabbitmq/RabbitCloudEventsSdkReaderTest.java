package io.twinbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A consumer that knows only the CloudEvents SDK and the AMQP binding's header rule ({@code
 * cloudEvents:} prefix, {@code content-type} property) reads every attribute Twinbox writes: the
 * SDK's own generic binary-mode reader, none of Twinbox's decoding.
 */
class RabbitCloudEventsSdkReaderTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @Test
  void theCloudEventsSdkAloneReadsEveryAttribute() throws Exception {
    OutboxMessage sent = RabbitWireFormatTest.full();
    String ex = "tbsdk." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    try (RabbitPublisher p = fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build()) {
      assertThat(p.send(sent).get(30, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
    }
    GetResponse r;
    try (Channel ch = fixture.admin().createChannel()) {
      r = ch.basicGet(t.queue(), true);
    }
    assertThat(r).isNotNull();

    CloudEvent e = new AmqpReader(r.getProps(), r.getBody()).toEvent();

    assertThat(e.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(e.getId()).isEqualTo(sent.id().toString());
    assertThat(e.getSource()).isEqualTo(URI.create("/orders-service"));
    assertThat(e.getType()).isEqualTo("com.example.OrderPlaced");
    assertThat(e.getSubject()).isEqualTo("o-42");
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2025-03-01T10:15:30.123456Z"));
    assertThat(e.getExtensionNames()).containsExactlyInAnyOrder("aggregatetype", "sequence", "partitionkey",
        "dataversion", "correlationid", "causationid", "traceparent");
    assertThat(e.getExtension("aggregatetype")).isEqualTo("Order");
    assertThat(e.getExtension("sequence")).isEqualTo("42");
    assertThat(e.getExtension("partitionkey")).isEqualTo("o-42");
    assertThat(e.getExtension("dataversion")).isEqualTo("2");
    assertThat(e.getExtension("correlationid")).isEqualTo("corr-1");
    assertThat(e.getExtension("causationid")).isEqualTo("cause-1");
    assertThat(e.getExtension("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo(sent.payload());
  }

  /** The AMQP binding, binary mode, on the SDK's generic reader: all a plain SDK user writes. */
  static final class AmqpReader extends BaseGenericBinaryMessageReaderImpl<String, Object> {
    private static final String PREFIX = "cloudEvents:";
    private final AMQP.BasicProperties props;

    AmqpReader(AMQP.BasicProperties props, byte[] body) {
      super(SpecVersion.parse(props.getHeaders().get(PREFIX + "specversion").toString()), BytesCloudEventData.wrap(body));
      this.props = props;
    }

    @Override
    protected boolean isContentTypeHeader(String key) {
      return key.equals("content-type");
    }

    @Override
    protected boolean isCloudEventsHeader(String key) {
      return key.startsWith(PREFIX);
    }

    @Override
    protected String toCloudEventsKey(String key) {
      return key.substring(PREFIX.length());
    }

    @Override
    protected void forEachHeader(BiConsumer<String, Object> fn) {
      Map<String, Object> headers = props.getHeaders();
      headers.forEach(fn);
      fn.accept("content-type", props.getContentType());
    }

    @Override
    protected String toCloudEventsValue(Object value) {
      return value.toString(); // LongString: its UTF-8 text; a long: its decimal
    }
  }
}
