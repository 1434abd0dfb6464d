package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.net.URI;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WireAttributesTest {
  private static final UUID ID = UUID.fromString("0190a3b4-0000-7000-8000-000000000001");
  private static final Instant AT = Instant.parse("2026-03-01T10:15:00Z");

  @Test
  void everyAttributeInCloudEventsOrderTypedAsCloudEventsTypesIt() {
    OutboxMessage m = new OutboxMessage(1, ID, "Order", "o-1", 42, 0, "OrderPlaced", 2, "{}", Map.of("tenant", "acme"),
        "corr", "cause", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", AT, AT, 0, "/orders");

    Map<String, Object> a = WireAttributes.of(m, WireAttributes.source(m.source()));

    assertThat(a).containsExactly(entry("specversion", "1.0"), entry("id", ID.toString()),
        entry("source", URI.create("/orders")), entry("type", "OrderPlaced"), entry("datacontenttype", "application/json"),
        entry("subject", "o-1"), entry("time", AT), entry("aggregatetype", "Order"), entry("sequence", "42"),
        entry("partitionkey", "o-1"), entry("dataversion", 2), entry("correlationid", "corr"),
        entry("causationid", "cause"), entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assertThat(WireAttributes.text(a.get("time"))).as("RFC 3339 with the seconds written").isEqualTo("2026-03-01T10:15:00Z");
  }

  @Test
  void absentAttributesAreLeftOutAndTheKeyFallsBackToTheId() {
    OutboxMessage m = new OutboxMessage(1, ID, null, null, 0, 0, "Ping", 1, "{}", Map.of(), null, null, null, null, AT,
        0, null);

    Map<String, Object> a = WireAttributes.of(m, WireAttributes.source(m.source()));

    assertThat(a).containsOnlyKeys("specversion", "id", "source", "type", "datacontenttype", "sequence", "partitionkey",
        "dataversion");
    assertThat(a.get("source")).isEqualTo(WireAttributes.DEFAULT_SOURCE);
    assertThat(a.get("partitionkey")).isEqualTo(ID.toString());
  }

  @Test
  void whatIsWrittenIsReadBackByTheOneReader() {
    OutboxMessage m = new OutboxMessage(1, ID, "Order", "o-1", 42, 0, "OrderPlaced", 2, "{\"a\":1}", Map.of(), "corr",
        null, null, AT, AT, 0, "/orders");
    Map<String, String> text = new java.util.LinkedHashMap<>();
    WireAttributes.of(m, WireAttributes.source(m.source())).forEach((k, v) -> text.put(k, WireAttributes.text(v)));

    WireEvents.Read read = WireEvents.read(text, m.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8), Map.of(),
        "test", () -> WireEvents.unreadable("x", null, null, "test"));

    assertThat(read.ok()).as(read.failure()).isTrue();
    assertThat(read.message().id()).isEqualTo(ID.toString());
    assertThat(read.message().sequence()).isEqualTo(42);
    assertThat(read.message().version()).isEqualTo(2);
    assertThat(read.message().time()).isEqualTo(AT);
    assertThat(read.message().aggregateId()).isEqualTo("o-1");
    assertThat(read.message().source()).isEqualTo("/orders");
  }
}
