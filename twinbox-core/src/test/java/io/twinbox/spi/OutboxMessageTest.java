package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutboxMessageTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private static OutboxMessage message(Map<String, String> headers) {
    return new OutboxMessage(7, UUID.randomUUID(), "Order", "o-1", 3, 2, "OrderPlaced", 2, "{\"a\":1}", headers,
        "corr", "cause", TRACEPARENT, Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:01Z"),
        1, "/orders");
  }

  @Test
  void withHeadersReplacesOnlyTheHeadersAndKeepsTheirOrder() {
    OutboxMessage m = message(Map.of("tenant", "acme"));
    Map<String, String> more = new LinkedHashMap<>();
    more.put("tenant", "acme");
    more.put("traceparent", "00-11111111111111111111111111111111-2222222222222222-01");
    more.put("tracestate", "k=v");

    OutboxMessage out = m.withHeaders(more);

    assertThat(out.headers()).containsExactlyEntriesOf(more);
    assertThat(List.copyOf(out.headers().keySet())).containsExactly("tenant", "traceparent", "tracestate");
    assertThat(out.withHeaders(m.headers())).isEqualTo(m);
    assertThat(out.traceparent()).as("the write-time context is not touched").isEqualTo(TRACEPARENT);
    assertThat(out.id()).isEqualTo(m.id());
    assertThat(out.correlationId()).isEqualTo("corr");
    assertThat(out.causationId()).isEqualTo("cause");
    assertThat(out.source()).isEqualTo("/orders");
    assertThat(out.attempts()).isEqualTo(1);
    assertThat(m.headers()).as("the original is unchanged").containsOnlyKeys("tenant");
  }

  @Test
  void withHeadersCopiesTheMap() {
    Map<String, String> mutable = new LinkedHashMap<>(Map.of("a", "1"));
    OutboxMessage out = message(Map.of()).withHeaders(mutable);
    mutable.put("b", "2");

    assertThat(out.headers()).containsOnlyKeys("a");
    assertThatThrownBy(() -> out.headers().put("c", "3")).isInstanceOf(UnsupportedOperationException.class);
  }
}
