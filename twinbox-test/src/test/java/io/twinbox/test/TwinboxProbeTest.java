package io.twinbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.spi.OutboxMessage;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The probe and the extension on core's in-memory store (Acceptance 3's failing await included). */
class TwinboxProbeTest {
  @RegisterExtension static TwinboxExtension twinbox = TwinboxExtension.inMemory();

  private void place(String orderId, String amount, boolean commit) throws Exception {
    Outbox outbox = Outbox.builder(twinbox.store()).build();
    try (Connection c = twinbox.memoryStore().dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", orderId)
          .payload("{\"orderId\":\"" + orderId + "\", \"amount\": \"" + amount + "\"}").build());
      if (commit) {
        c.commit();
      } else {
        c.rollback();
      }
    }
  }

  @Test
  void drainPublishesWhatCommittedAndAssertsMatchTypeAggregateAndPayloadJson(TwinboxProbe probe) throws Exception {
    place("42", "42.00", true);
    place("43", "1.00", false);

    List<OutboxMessage> drained = probe.drain();

    assertThat(drained).hasSize(1);
    OutboxMessage m = probe.assertPublished(EventMatcher.type("OrderCreated").aggregate("Order", "42")
        .payloadJson("{\"amount\":\"42.00\",\"orderId\":\"42\"}")); // other key order, other spacing
    assertThat(m.aggregateId()).isEqualTo("42");
    probe.assertPublished(EventMatcher.type("OrderCreated").payloadAt("/amount", "42.00"));
    probe.assertNotPublished(EventMatcher.type("OrderCreated").aggregate("Order", "43"));
    assertThatThrownBy(() -> probe.assertPublished(EventMatcher.type("OrderCreated").payloadAt("/amount", "41.00")))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void aMissingEventFailsTheAwaitNamingWhatWasExpected(TwinboxProbe probe) throws Exception {
    place("42", "42.00", true);
    probe.drain();

    assertThatThrownBy(() -> probe.awaitPublished(
        EventMatcher.type("PaymentCaptured").aggregate("Order", "42"), Duration.ofMillis(300)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected an event published: type=PaymentCaptured, aggregate=Order/42")
        .hasMessageContaining("Published (1): type=OrderCreated, aggregate=Order/42")
        .hasMessageNotContaining("42.00"); // payloads stay out of failure messages
  }

  @Test
  void awaitNothingPendingWaitsForTheRelayUnderTestThenFailsNamingWhatIsStillPending(TwinboxProbe probe)
      throws Exception {
    place("42", "42.00", true);
    place("43", "1.00", false);
    place("44", "4.00", true);
    try (Relay relay = Relay.builder(twinbox.store(), probe.transport()).pollInterval(Duration.ofMillis(20)).build()) {
      relay.start();   // the application's own relay, on the probe's transport

      List<OutboxMessage> published = probe.awaitNothingPending();

      assertThat(published).extracting(OutboxMessage::aggregateId).containsExactlyInAnyOrder("42", "44");
      probe.assertNotPublished(EventMatcher.type("OrderCreated").aggregate("Order", "43"));
    }

    place("45", "5.00", true); // committed, but no relay runs any more
    assertThatThrownBy(() -> probe.awaitNothingPending(Duration.ofMillis(200)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("awaitNothingPending: 1 events still pending after PT0.2S");
  }

  @Test
  void eachTestStartsWithNothingPublished(TwinboxProbe probe) {
    assertThat(probe.published()).isEmpty();
    assertThat(twinbox.memoryStore().outboxRows()).isEmpty();
  }

  @Test
  void awaitAppliedSeesAnInboxCommitAndNamesTheMessageWhenMissing() throws Exception {
    Inbox inbox = Inbox.builder(twinbox.memoryStore(), "payments").build();
    InboxMessage message = new InboxMessage("m-1", "OrderCreated", 1, "/orders", "Order", "42", 1, "{}", null,
        null, null, null, null, null);
    try (Connection c = twinbox.memoryStore().dataSource().getConnection()) {
      c.setAutoCommit(false);
      inbox.process(c, message, (connection, m) -> {});
      c.commit();
    }
    TwinboxProbe.awaitApplied(twinbox.memoryStore(), twinbox.memoryStore().dataSource(), "payments", "m-1");
    assertThatThrownBy(() -> TwinboxProbe.awaitApplied(twinbox.memoryStore(), twinbox.memoryStore().dataSource(),
        "payments", "m-2", Duration.ofMillis(200)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected message m-2 applied by inbox consumer 'payments'");
  }
}
