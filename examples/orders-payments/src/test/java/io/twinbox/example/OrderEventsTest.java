package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.test.EventMatcher;
import io.twinbox.test.TwinboxProbe;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the order service publishes, checked with {@code twinbox-test} as a user of Twinbox would:
 * no Kafka, the order service's real PostgreSQL database, and a {@link TwinboxProbe} whose
 * {@link TwinboxProbe#drain()} relays everything committed. A placed order announces itself with
 * exactly the contract the payment service reads; an order whose transaction rolled back does not.
 */
class OrderEventsTest {
  private static PostgresDatabase ordersDb;
  private static OrderService orders;
  private static TwinboxProbe probe;

  @BeforeAll
  static void database() throws SQLException {
    ordersDb = PostgresDatabase.create();
    orders = new OrderService(ordersDb.dataSource());
    orders.migrate();
    probe = TwinboxProbe.of(orders.store());
  }

  @AfterAll
  static void drop() {
    ordersDb.close();
  }

  @BeforeEach
  void forgetEarlierTests() {
    probe.reset();
  }

  @Test
  void placingAnOrderPublishesOrderCreatedWithTheContractsFields() throws SQLException {
    UUID orderId = orders.placeOrder("c-7", 1_234);

    List<OutboxMessage> drained = probe.drain();

    assertThat(drained).hasSize(1);
    OutboxMessage m = probe.assertPublished(EventMatcher.type(Events.ORDER_CREATED)
        .aggregate(OrderService.AGGREGATE, orderId)
        .payloadJson("{\"customerId\":\"c-7\",\"amountCents\":1234,\"orderId\":\"" + orderId + "\"}")
        .and("correlationId=" + orderId, e -> orderId.toString().equals(e.correlationId())));
    assertThat(m.version()).isEqualTo(Events.VERSION);
  }

  @Test
  void anOrderWhoseTransactionRolledBackPublishesNothing() throws SQLException {
    // amount_cents > 0 is a CHECK of the orders table: the insert fails, the transaction rolls back.
    assertThatThrownBy(() -> orders.placeOrder("c-rolled-back", 0)).isInstanceOf(SQLException.class);
    UUID committed = orders.placeOrder("c-8", 500);

    probe.drain(); // returns only when nothing committed is still pending

    probe.assertPublished(EventMatcher.type(Events.ORDER_CREATED).aggregate(OrderService.AGGREGATE, committed));
    probe.assertNotPublished(EventMatcher.type(Events.ORDER_CREATED).payloadAt("/customerId", "c-rolled-back"));
    assertThat(probe.published()).hasSize(1);
  }

  @Test
  void aMissingEventFailsTheAwaitNamingTheExpectedTypeAndAggregate() throws SQLException {
    UUID orderId = orders.placeOrder("c-9", 700);
    probe.drain();

    // The order service never publishes a payment result: only the payment service does.
    assertThatThrownBy(() -> probe.awaitPublished(
        EventMatcher.type(Events.PAYMENT_CAPTURED).aggregate(OrderService.AGGREGATE, orderId), Duration.ofMillis(300)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected an event published: type=PaymentCaptured, aggregate=Order/" + orderId)
        .hasMessageContaining("Published (1): type=OrderCreated, aggregate=Order/" + orderId)
        .hasMessageNotContaining("c-9"); // payloads stay out of failure messages
  }
}
