package io.twinbox.nats.internal;

import io.twinbox.spi.WireEvents;
import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.twinbox.testkit.contract.WireCases;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The NATS decoder accepts and refuses what the Kafka and AMQP decoders do ({@link WireCases}). */
class NatsDecodeTest {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** Percent-encodes raw bytes as the NATS binding does (so a case can carry invalid UTF-8). */
  private static String percent(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
      int c = b & 0xff;
      if (c > ' ' && c < 0x7f && c != '"' && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  static Iterable<WireCases.Case> cases() {
    return WireCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void acceptsAndRefusesWhatEveryConsumerDoes(WireCases.Case c) {
    Headers h = new Headers();
    for (Map.Entry<String, byte[]> a : c.attributes().entrySet()) {
      h.add(NatsCloudEvents.PREFIX + a.getKey(), percent(a.getValue()));
    }
    c.headers().forEach((k, v) -> h.add(k, percent(v)));
    NatsMessage msg = NatsMessage.builder().subject("tb.orders.x").headers(h).data(c.data()).build();

    WireEvents.Read d = NatsCloudEvents.decode(msg);

    assertThat(d.failure() == null).as("%s: %s", c.name(), d.failure()).isEqualTo(c.accepted());
    if (!c.accepted()) {
      assertThat(d.message().id()).isEqualTo("nats:tb.orders.x");
      assertThat(d.message().type()).isEqualTo("unreadable");
    }
  }
}
