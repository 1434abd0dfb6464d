package io.twinbox.rabbitmq.internal;

import io.twinbox.spi.WireEvents;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import io.twinbox.testkit.contract.WireCases;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The AMQP decoder accepts and refuses what the Kafka and NATS decoders do ({@link WireCases}). */
class AmqpCloudEventsTest {
  static Iterable<WireCases.Case> cases() {
    return WireCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void acceptsAndRefusesWhatEveryConsumerDoes(WireCases.Case c) {
    Map<String, Object> headers = new LinkedHashMap<>();
    String contentType = null;
    for (Map.Entry<String, byte[]> a : c.attributes().entrySet()) {
      if (a.getKey().equals("datacontenttype")) {
        contentType = new String(a.getValue(), StandardCharsets.UTF_8);
      } else {
        headers.put(AmqpCloudEvents.PREFIX + a.getKey(), LongStringHelper.asLongString(a.getValue()));
      }
    }
    c.headers().forEach((k, v) -> headers.put(k, LongStringHelper.asLongString(v)));
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().headers(headers).contentType(contentType)
        .messageId("amqp-" + c.name().replace(' ', '-')).build();

    WireEvents.Read d = AmqpCloudEvents.decode(props, c.data(), "q@1");

    assertThat(d.failure() == null).as("%s: %s", c.name(), d.failure()).isEqualTo(c.accepted());
    if (!c.accepted()) {
      assertThat(d.message().id()).startsWith("rabbitmq:amqp-");
      assertThat(d.message().type()).isEqualTo("unreadable");
    }
  }
}
