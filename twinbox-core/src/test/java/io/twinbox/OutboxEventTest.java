package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Write-time rules of an event: every bad value is a typed error naming its field. */
class OutboxEventTest {

  private static OutboxEvent.Builder valid() {
    return OutboxEvent.builder("OrderCreated", 1).aggregate("Order", "o-1").payload("{\"a\":1}");
  }

  @Test
  void aValidEventKeepsEveryField() {
    OutboxEvent e = valid().header("x-tenant", "acme").correlationId("c").causationId("k")
        .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build();
    assertThat(e.ordered()).isTrue();
    assertThat(e.headers()).containsEntry("x-tenant", "acme");
    assertThat(OutboxEvent.builder("T", 2).unordered("Audit").payload("[]").build().ordered()).isFalse();
  }

  @Test
  void headerValuesWithAnyControlCharacterAreRefused() {
    Random random = new Random(42);
    for (int i = 0; i < 2_000; i++) {
      char control = (char) (random.nextBoolean() ? random.nextInt(0x20) : 0x7f);
      String value = "v" + control + "x".repeat(random.nextInt(5));
      Throwable t = catchThrowable(() -> valid().header("x-h", value).build());
      assertThat(t).as("value with U+%04X", (int) control).isInstanceOf(InvalidEventException.class);
      assertThat(((InvalidEventException) t).field()).isEqualTo("headers.x-h");
    }
  }

  @Test
  void headerNamesOutsideTheTokenAlphabetOrReservedAreRefused() {
    for (String name : new String[] {"", " x", "x y", "a:b", "é", "ce_id", "CE_TYPE", "ce-source", "Nats-Msg-Id",
        "x-delivery-count", "twinbox-attempt", "__TypeId__", "traceparent", "content-type"}) {
      assertThatThrownBy(() -> valid().header(name, "v").build()).as(name).isInstanceOf(InvalidEventException.class);
    }
    assertThatThrownBy(() -> valid().header("x".repeat(129), "v").build()).hasMessageContaining("128");
    assertThatThrownBy(() -> valid().header("x", "v".repeat(4097)).build()).hasMessageContaining("4096");
  }

  @Test
  void payloadMustBeExactlyOneJsonValue() {
    for (String bad : new String[] {"", "   ", "{", "{\"a\":1}{}", "{\"a\":1} x", "nope", "{'a':1}"}) {
      assertThatThrownBy(() -> valid().payload(bad).build()).as(bad)
          .isInstanceOf(InvalidEventException.class).extracting("field").isEqualTo("payload");
    }
    assertThat(valid().payload("  {\"a\":[1,2,{\"b\":null}]}  ").build().payload()).contains("\"b\"");
    assertThatThrownBy(() -> valid().payload(null).build()).extracting("field").isEqualTo("payload");
  }

  /**
   * Issue 22: JSON that is well-formed but that PostgreSQL's jsonb cannot store (a NUL character,
   * a lone surrogate, a number outside its numeric range) is refused at write on every store, with
   * the field named, instead of an untyped database error on PostgreSQL and a stored row on MariaDB.
   */
  @Test
  void payloadsThatJsonbCannotStoreAreRefusedNamingThePayload() {
    for (String bad : new String[] {"{\"a\":\"\\u0000\"}", "{\"\\u0000\":1}", "[\"x\\u0000y\"]", "1e999999",
        "{\"n\":1e131072}", "{\"n\":10e131071}", "[1e-16384]", "1.5e-16383", "0.000e-16381", "0e1073741823",
        "\"\\ud800\"", "\"\\udc00x\"", "\"\ud800\"", "{\"a\":\"\\ud83d\"}"}) {
      Throwable t = catchThrowable(() -> valid().payload(bad).build());
      assertThat(t).as(bad).isInstanceOf(InvalidEventException.class);
      assertThat(((InvalidEventException) t).field()).as(bad).isEqualTo("payload");
    }
    for (String good : new String[] {"1e131071", "9.9e131071", "0.1e131072", "1e-16383", "0e999999", "1E+5", "-0",
        "\"\\ud83d\\ude00\"", "\"\ud83d\ude00\"", "{\"a\":\"\\u0001\"}", "12345678901234567890.5e-3"}) {
      assertThat(valid().payload(good).build().payload()).as(good).isEqualTo(good);
    }
  }

  @Test
  void namesAndIdsHaveLimits() {
    assertThatThrownBy(() -> OutboxEvent.builder("T".repeat(256), 1).aggregate("A", "1").payload("{}").build())
        .hasMessageContaining("limit 255").extracting("field").isEqualTo("type");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).aggregate("A", "i".repeat(256)).payload("{}").build())
        .extracting("field").isEqualTo("aggregateId");
    assertThatThrownBy(() -> OutboxEvent.builder("T", 1).unordered(null).payload("{}").build())
        .extracting("field").isEqualTo("aggregateType");
    assertThatThrownBy(() -> valid().traceparent("not-a-trace").build()).extracting("field").isEqualTo("traceparent");
    assertThatThrownBy(() -> valid().correlationId("a\nb").build()).extracting("field").isEqualTo("correlationId");
  }
}
