package io.twinbox.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.trace.data.SpanData;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOutcome;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A relay that republishes a message (after an ambiguous broker answer) sends it under a new
 * producer span, so the copy carries another {@code traceparent} header. The inbox must still see
 * a duplicate — not a conflicting payload — and the handler must not run again.
 */
class RepublishedMessageTest {
  static final String WRITER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  static InboxMessage copy(String producerTraceparent) {
    return new InboxMessage("m-republished", "OrderCreated", 1, "/orders", "Order", "o-1", 1, "{\"a\":1}",
        Map.of("tenant", "acme", "traceparent", producerTraceparent), "corr", null, WRITER, Instant.now(),
        "orders-0@1");
  }

  @Test
  void aCopyUnderAnotherProducerSpanIsADuplicate() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create(); Tracing tracing = new Tracing()) {
      JdbcStore store = JdbcStore.builder(db.dataSource()).build();
      store.migrate();
      Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "payments").build();
      AtomicInteger runs = new AtomicInteger();
      InboxHandler handler = TracingInboxHandler.wrap((c, m) -> runs.incrementAndGet(), tracing.sdk);

      InboxOutcome first = process(db, inbox, handler,
          copy("00-0af7651916cd43dd8448eb211c80319c-1111111111111111-01"));
      InboxOutcome second = process(db, inbox, handler,
          copy("00-0af7651916cd43dd8448eb211c80319c-2222222222222222-01"));

      assertThat(first).isEqualTo(InboxOutcome.PROCESSED);
      assertThat(second).isEqualTo(InboxOutcome.DUPLICATE);
      assertThat(runs).hasValue(1);
      assertThat(tracing.spans()).extracting(SpanData::getParentSpanId).containsExactly("1111111111111111");
    }
  }

  private static InboxOutcome process(PostgresDatabase db, Inbox inbox, InboxHandler handler, InboxMessage m)
      throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      InboxOutcome o = inbox.process(c, m, handler);
      c.commit();
      return o;
    }
  }
}
