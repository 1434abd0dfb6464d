package io.twinbox.example;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The order service, on its own database. Shows the producer half of the pattern and a state
 * transition as an idempotency guard:
 *
 * <ul>
 *   <li>{@link #placeOrder} stores the order <em>and</em> its {@code OrderCreated} event in one local
 *       transaction (R1, R3): both commit or neither does, so Payment never hears of an order that
 *       rolled back, and never misses one that committed.
 *   <li>{@link #paymentResultHandler()} applies {@code PaymentCaptured} / {@code PaymentDeclined}
 *       through the inbox (consumer {@value #CONSUMER}) and moves the order only
 *       <em>from PENDING</em> (R15): a late or repeated answer under a new message id — which the
 *       inbox cannot recognise — changes nothing and is only counted in {@code ignored_results}.
 * </ul>
 *
 * <p>Thread-safe: all state is in the database.
 */
public final class OrderService {
  /** The inbox consumer name of this service. */
  public static final String CONSUMER = "order-service";
  /** The aggregate type of every event about an order, in both services. */
  public static final String AGGREGATE = "Order";

  private static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS orders (
        id              uuid        PRIMARY KEY,
        customer_id     varchar(64) NOT NULL,
        amount_cents    bigint      NOT NULL CHECK (amount_cents > 0),
        status          varchar(16) NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PAID', 'REJECTED')),
        created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
        settled_at      timestamptz,
        resends         int         NOT NULL DEFAULT 0,  -- OrderCreated re-emitted under a new id (chaos)
        ignored_results int         NOT NULL DEFAULT 0   -- answers that found the order no longer PENDING
      )""";
  private static final String INSERT_ORDER =
      "INSERT INTO orders (id, customer_id, amount_cents) VALUES (?, ?, ?)";
  private static final String COUNT_RESEND =
      "UPDATE orders SET resends = resends + 1 WHERE id = ? RETURNING customer_id, amount_cents";
  // The state transition: only a PENDING order moves, so a second answer is a no-op.
  private static final String SETTLE =
      "UPDATE orders SET status = ?, settled_at = clock_timestamp() WHERE id = ? AND status = 'PENDING'";
  private static final String IGNORE =
      "UPDATE orders SET ignored_results = ignored_results + 1 WHERE id = ?";

  private final DataSource dataSource;
  private final JdbcStore store;
  private final Outbox outbox;
  private final Inbox inbox;

  /** A service on {@code dataSource}; call {@link #migrate()} once before use. */
  public OrderService(DataSource dataSource) {
    this.dataSource = dataSource;
    this.store = JdbcStore.builder(dataSource).build();
    this.outbox = Outbox.builder(store).build();
    this.inbox = Inbox.builder(JdbcInboxStore.of(store), CONSUMER).build();
  }

  /** Creates the Twinbox tables and the {@code orders} table. Idempotent. */
  public void migrate() throws SQLException {
    store.migrate();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute(SCHEMA);
    }
  }

  /**
   * Places an order: the row and its {@code OrderCreated} v1 (aggregate {@code Order}/order id,
   * correlation id = order id) in one transaction.
   *
   * @return the new order's id, once committed
   */
  public UUID placeOrder(String customerId, long amountCents) throws SQLException {
    UUID orderId = UUID.randomUUID();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
          ps.setObject(1, orderId);
          ps.setString(2, customerId);
          ps.setLong(3, amountCents);
          ps.executeUpdate();
        }
        outbox.write(c, orderCreated(orderId, customerId, amountCents));
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
    return orderId;
  }

  /**
   * Emits {@code OrderCreated} for an existing order a second time, under a new message id — what a
   * careless client retry or a replayed command does. The inbox cannot recognise it (new id); the
   * payment's business key must. Used by the demo's chaos.
   */
  public void resendOrderCreated(UUID orderId) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(COUNT_RESEND)) {
        ps.setObject(1, orderId);
        try (var rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalArgumentException("no order " + orderId);
          }
          outbox.write(c, orderCreated(orderId, rs.getString(1), rs.getLong(2)));
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** The inbox handler for the payments topic: the state transition PENDING → PAID / REJECTED. */
  public InboxHandler paymentResultHandler() {
    return this::applyPaymentResult;
  }

  private void applyPaymentResult(Connection c, InboxMessage message) throws SQLException {
    Events.PaymentResult result = Events.paymentResult(message);
    String status = Events.PAYMENT_CAPTURED.equals(message.type()) ? "PAID" : "REJECTED";
    try (PreparedStatement ps = c.prepareStatement(SETTLE)) {
      ps.setString(1, status);
      ps.setObject(2, result.orderId());
      if (ps.executeUpdate() == 1) {
        return;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(IGNORE)) {
      ps.setObject(1, result.orderId());
      if (ps.executeUpdate() == 0) {
        throw new UnprocessableMessageException(message.type() + " for unknown order " + result.orderId());
      }
    }
  }

  /** The outbox store (for the relay). */
  public JdbcStore store() {
    return store;
  }

  /** The inbox of consumer {@value #CONSUMER}. */
  public Inbox inbox() {
    return inbox;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  private static OutboxEvent orderCreated(UUID orderId, String customerId, long amountCents) {
    return OutboxEvent.builder(Events.ORDER_CREATED, Events.VERSION)
        .aggregate(AGGREGATE, orderId.toString())
        .payload(Events.toJson(new Events.OrderCreated(orderId, customerId, amountCents)))
        .correlationId(orderId.toString())
        .build();
  }
}
