package io.twinbox.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The binding's percent-encoding, with its own examples. */
class NatsCloudEventsTest {
  @Test
  void encodesTheBindingsExample() {
    assertThat(NatsCloudEvents.encode("Euro \u20AC \uD83D\uDE00")).isEqualTo("Euro%20%E2%82%AC%20%F0%9F%98%80");
    assertThat(NatsCloudEvents.encode("a\"b%c")).isEqualTo("a%22b%25c");
    assertThat(NatsCloudEvents.encode("plain-ASCII_1.0/x")).isEqualTo("plain-ASCII_1.0/x");
  }

  @Test
  void decodesWhatItEncodesAndWhatOlderSendersQuoted() {
    for (String s : new String[] {"Euro \u20AC \uD83D\uDE00", "naïve %41", "\"quoted\"", ""}) {
      assertThat(NatsCloudEvents.decodeValue(NatsCloudEvents.encode(s))).isEqualTo(s);
    }
    assertThat(NatsCloudEvents.decodeValue("\"a \\\"b\\\" c\"")).isEqualTo("a \"b\" c");
    assertThat(NatsCloudEvents.decodeValue("caf%c3%a9")).as("lower-case hex").isEqualTo("café");
  }

  @Test
  void refusesInvalidUtf8AndBrokenEscapes() {
    assertThatThrownBy(() -> NatsCloudEvents.decodeValue("%C0%A0")).hasMessageContaining("UTF-8");
    assertThatThrownBy(() -> NatsCloudEvents.decodeValue("abc%4")).hasMessageContaining("truncated");
    assertThatThrownBy(() -> NatsCloudEvents.decodeValue("%G1")).hasMessageContaining("malformed");
  }
}
