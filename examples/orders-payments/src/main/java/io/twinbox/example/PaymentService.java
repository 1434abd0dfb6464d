package io.twinbox.example;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The payment service, on its own database. Shows the consumer half of the pattern (R13, R14,
 * R23) and a business key as the second guard (R15):
 *
 * <ol>
 *   <li>The inbox (consumer {@value #CONSUMER}) records the message id as the first statement of
 *       the transaction; a redelivered or republished {@code OrderCreated} is skipped there.
 *   <li>The payment row is keyed by the order id ({@code payments.order_id} is the primary key)
 *       and claimed <em>before</em> any money moves. An {@code OrderCreated} for an order that
 *       already has a payment — same order, new message id, which the inbox cannot recognise — is
 *       counted in {@code payments.repeats} and answered again with the recorded outcome; the wallet
 *       is not touched a second time.
 *   <li>Otherwise the wallet is debited only if the balance suffices ({@code balance_cents >= ?} in
 *       the {@code UPDATE} itself, so no read-then-write race), and {@code PaymentCaptured} or
 *       {@code PaymentDeclined} is written to this service's outbox — all in the inbox's
 *       transaction, which commits before the Kafka offset does.
 * </ol>
 *
 * <p>A payload that does not match the {@code OrderCreated} v1 contract throws
 * {@link io.twinbox.UnprocessableMessageException} and is parked at once. Thread-safe: all state is
 * in the database.
 */
public final class PaymentService {
  /** The inbox consumer name of this service. */
  public static final String CONSUMER = "payment-service";

  private static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS wallets (
        customer_id   varchar(64) PRIMARY KEY,
        initial_cents bigint      NOT NULL,
        balance_cents bigint      NOT NULL CHECK (balance_cents >= 0)
      );
      CREATE TABLE IF NOT EXISTS payments (
        order_id     uuid         PRIMARY KEY,  -- the business key: one payment per order, whatever the message id
        customer_id  varchar(64)  NOT NULL,
        amount_cents bigint       NOT NULL,
        status       varchar(16)  NOT NULL CHECK (status IN ('CAPTURED', 'DECLINED')),
        reason       varchar(64),               -- why it was declined
        message_id   varchar(255) NOT NULL,     -- the OrderCreated that caused it
        repeats      int          NOT NULL DEFAULT 0,
        decided_at   timestamptz  NOT NULL DEFAULT clock_timestamp()
      )""";
  private static final String SEED_WALLETS = """
      INSERT INTO wallets (customer_id, initial_cents, balance_cents)
      SELECT 'c-' || n, ?, ? FROM generate_series(1, ?) AS n
      ON CONFLICT (customer_id) DO NOTHING""";
  // The claim comes first, before any money moves, so that a concurrent second OrderCreated for
  // the same order waits on the key. It records the outcome of a failed debit; a successful debit
  // upgrades it — all in one transaction, so nobody ever sees the provisional row.
  private static final String CLAIM = """
      INSERT INTO payments (order_id, customer_id, amount_cents, status, reason, message_id)
      VALUES (?, ?, ?, 'DECLINED', 'insufficient funds', ?) ON CONFLICT (order_id) DO NOTHING""";
  private static final String REPEAT = """
      UPDATE payments SET repeats = repeats + 1 WHERE order_id = ?
      RETURNING customer_id, amount_cents, status, reason""";
  private static final String DEBIT = """
      UPDATE wallets SET balance_cents = balance_cents - ? WHERE customer_id = ? AND balance_cents >= ?""";
  private static final String CAPTURED = "UPDATE payments SET status = 'CAPTURED', reason = NULL WHERE order_id = ?";
  private static final String NO_WALLET = """
      UPDATE payments SET reason = 'no wallet' WHERE order_id = ?
         AND NOT EXISTS (SELECT 1 FROM wallets WHERE customer_id = ?)
      RETURNING reason""";

  private final DataSource dataSource;
  private final JdbcStore store;
  private final Outbox outbox;
  private final Inbox inbox;

  /** A service on {@code dataSource}; call {@link #migrate()} once before use. */
  public PaymentService(DataSource dataSource) {
    this(dataSource, InboxListener.NONE);
  }

  /** Like {@link #PaymentService(DataSource)}, with a listener on the inbox (tests count deliveries). */
  public PaymentService(DataSource dataSource, InboxListener listener) {
    this.dataSource = dataSource;
    this.store = JdbcStore.builder(dataSource).build();
    this.outbox = Outbox.builder(store).build();
    this.inbox = Inbox.builder(JdbcInboxStore.of(store), CONSUMER).listener(listener).build();
  }

  /** Creates the Twinbox tables and {@code wallets} and {@code payments}. Idempotent. */
  public void migrate() throws SQLException {
    store.migrate();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute(SCHEMA);
    }
  }

  /** Opens wallets {@code c-1} … {@code c-<customers>} with {@code balanceCents} each (existing ones stay). */
  public void openWallets(int customers, long balanceCents) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(SEED_WALLETS)) {
      ps.setLong(1, balanceCents);
      ps.setLong(2, balanceCents);
      ps.setInt(3, customers);
      ps.executeUpdate();
    }
  }

  /** The inbox handler for the orders topic. */
  public InboxHandler orderCreatedHandler() {
    return this::pay;
  }

  private void pay(Connection c, InboxMessage message) throws SQLException {
    Events.OrderCreated order = Events.orderCreated(message);
    if (!claim(c, order, message)) {
      answerAgain(c, order, message);
      return;
    }
    boolean debited;
    try (PreparedStatement ps = c.prepareStatement(DEBIT)) {
      ps.setLong(1, order.amountCents());
      ps.setString(2, order.customerId());
      ps.setLong(3, order.amountCents());
      debited = ps.executeUpdate() == 1;
    }
    if (debited) {
      try (PreparedStatement ps = c.prepareStatement(CAPTURED)) {
        ps.setObject(1, order.orderId());
        ps.executeUpdate();
      }
      answer(c, Events.PAYMENT_CAPTURED, order.customerId(), order.amountCents(), null, order, message);
    } else {
      answer(c, Events.PAYMENT_DECLINED, order.customerId(), order.amountCents(), declineReason(c, order), order,
          message);
    }
  }

  /** The claim says "insufficient funds"; corrected here when the customer has no wallet at all. */
  private static String declineReason(Connection c, Events.OrderCreated order) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(NO_WALLET)) {
      ps.setObject(1, order.orderId());
      ps.setString(2, order.customerId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : "insufficient funds";
      }
    }
  }

  /** True when this message claimed the order's payment; false when the order was already paid for. */
  private static boolean claim(Connection c, Events.OrderCreated order, InboxMessage message) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setObject(1, order.orderId());
      ps.setString(2, order.customerId());
      ps.setLong(3, order.amountCents());
      ps.setString(4, message.id());
      return ps.executeUpdate() == 1;
    }
  }

  /** The business key caught a repeat: count it and repeat the recorded outcome, moving no money. */
  private void answerAgain(Connection c, Events.OrderCreated order, InboxMessage message) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(REPEAT)) {
      ps.setObject(1, order.orderId());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        boolean captured = "CAPTURED".equals(rs.getString(3));
        answer(c, captured ? Events.PAYMENT_CAPTURED : Events.PAYMENT_DECLINED, rs.getString(1), rs.getLong(2),
            rs.getString(4), order, message);
      }
    }
  }

  private void answer(Connection c, String type, String customerId, long amountCents, String reason,
      Events.OrderCreated order, InboxMessage cause) {
    String correlation = cause.correlationId() != null ? cause.correlationId() : order.orderId().toString();
    outbox.write(c, OutboxEvent.builder(type, Events.VERSION)
        // Aggregate Order, not Payment: the order's events stay in one ordered stream end to end.
        .aggregate(OrderService.AGGREGATE, order.orderId().toString())
        .payload(Events.toJson(new Events.PaymentResult(order.orderId(), customerId, amountCents, reason)))
        .correlationId(correlation)
        .causationId(cause.id())
        .build());
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
}
