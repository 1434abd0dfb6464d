package io.twinbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.nats.client.impl.Headers;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.WireAttributes;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * A consumer that knows only the CloudEvents SDK and the NATS binding's header rule ({@code ce-}
 * prefix, percent-encoded values) reads every attribute Twinbox's publisher writes: the SDK's own
 * generic binary-mode reader, and a percent-decoder of its own, none of Twinbox's decoding.
 */
class NatsCloudEventsSdkReaderTest {

  @Test
  void theCloudEventsSdkAloneReadsEveryAttribute() {
    Instant at = Instant.parse("2025-03-01T10:15:30.123456Z");
    OutboxMessage sent = new OutboxMessage(7, UUID.fromString("0195a3c4-1111-7abc-8def-0123456789ab"), "Order", "o-42",
        42, 3, "com.example.OrderPlaced", 2, "{\"note\":\"naïve\"}", Map.of("tenant", "acme é"), "corr 1", "cause-1",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", at, at, 0, "/orders-service");
    Headers headers = NatsCloudEvents.headers(sent, WireAttributes.source(sent.source()));

    CloudEvent e = new NatsReader(headers, sent.payload().getBytes(StandardCharsets.UTF_8)).toEvent();

    assertThat(e.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(e.getId()).isEqualTo(sent.id().toString());
    assertThat(e.getSource()).isEqualTo(URI.create("/orders-service"));
    assertThat(e.getType()).isEqualTo("com.example.OrderPlaced");
    assertThat(e.getSubject()).isEqualTo("o-42");
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2025-03-01T10:15:30.123456Z"));
    assertThat(e.getExtensionNames()).containsExactlyInAnyOrder("aggregatetype", "sequence", "partitionkey",
        "dataversion", "correlationid", "causationid", "traceparent");
    assertThat(e.getExtension("sequence")).isEqualTo("42");
    assertThat(e.getExtension("dataversion")).isEqualTo("2");
    assertThat(e.getExtension("correlationid")).as("percent-decoded").isEqualTo("corr 1");
    assertThat(e.getExtension("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo(sent.payload());
  }

  /** The NATS binding, binary mode, on the SDK's generic reader: all a plain SDK user writes. */
  static final class NatsReader extends BaseGenericBinaryMessageReaderImpl<String, String> {
    private static final String PREFIX = "ce-";
    private final Headers headers;

    NatsReader(Headers headers, byte[] body) {
      super(SpecVersion.parse(percentDecoded(headers.getFirst(PREFIX + "specversion"))), BytesCloudEventData.wrap(body));
      this.headers = headers;
    }

    @Override
    protected boolean isContentTypeHeader(String key) {
      return key.equalsIgnoreCase(PREFIX + "datacontenttype");
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
    protected void forEachHeader(BiConsumer<String, String> fn) {
      headers.entrySet().forEach(e -> fn.accept(e.getKey(), e.getValue().get(0)));
    }

    @Override
    protected String toCloudEventsValue(String value) {
      return percentDecoded(value);
    }

    private static String percentDecoded(String v) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c == '%') {
          out.write(Integer.parseInt(v.substring(i + 1, i + 3), 16));
          i += 2;
        } else {
          out.write(c);
        }
      }
      return out.toString(StandardCharsets.UTF_8);
    }
  }
}
