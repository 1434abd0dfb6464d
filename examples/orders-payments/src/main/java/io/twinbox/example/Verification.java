package io.twinbox.example;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Checks, with SQL over both databases after the run has drained, that every order had exactly one
 * effect: settled once, paid for once, each wallet debited exactly by its captured payments — to
 * the cent. The two databases are separate (as the two services' are), so the cross-service checks
 * compare them row by row here. Stateless.
 */
public final class Verification {
  private Verification() {}

  /** One service's ledger of an order: who, how much, what became of it. */
  private record Entry(String customerId, long amountCents, String status) {}

  /**
   * The checks.
   *
   * @param placed orders whose placing transaction committed, as counted by the writers
   * @param resends {@code OrderCreated} events emitted a second time under a new id (chaos)
   */
  public static List<Check> verify(DataSource orders, DataSource payments, long placed, long resends)
      throws SQLException {
    Map<UUID, Entry> orderRows = entries(orders, "SELECT id, customer_id, amount_cents, status FROM orders");
    Map<UUID, Entry> paymentRows = entries(payments,
        "SELECT order_id, customer_id, amount_cents, status FROM payments");
    long paid = orderRows.values().stream().filter(e -> e.status().equals("PAID")).count();
    long rejected = orderRows.values().stream().filter(e -> e.status().equals("REJECTED")).count();
    long pending = orderRows.values().stream().filter(e -> e.status().equals("PENDING")).count();
    long paidCents = orderRows.values().stream().filter(e -> e.status().equals("PAID"))
        .mapToLong(Entry::amountCents).sum();

    long missingPayment = 0;
    long mismatched = 0;
    long lost = Math.max(0, placed - orderRows.size());
    for (Map.Entry<UUID, Entry> o : orderRows.entrySet()) {
      Entry p = paymentRows.get(o.getKey());
      if (p == null) {
        missingPayment++;
      } else if (!matches(o.getValue(), p)) {
        mismatched++;
      }
      if (p == null || o.getValue().status().equals("PENDING")) {
        lost++;
      }
    }
    long strayPayments = paymentRows.keySet().stream().filter(id -> !orderRows.containsKey(id)).count();
    long capturedCents = paymentRows.values().stream().filter(e -> e.status().equals("CAPTURED"))
        .mapToLong(Entry::amountCents).sum();

    long[] wallets = longs(payments, """
        SELECT count(*),
               count(*) FILTER (WHERE w.initial_cents - coalesce(p.captured, 0) <> w.balance_cents),
               count(*) FILTER (WHERE w.initial_cents - w.balance_cents > coalesce(p.captured, 0)),
               coalesce(sum(w.initial_cents - w.balance_cents), 0),
               count(*) FILTER (WHERE w.balance_cents < 0)
          FROM wallets w
          LEFT JOIN (SELECT customer_id, sum(amount_cents) AS captured FROM payments
                      WHERE status = 'CAPTURED' GROUP BY customer_id) p USING (customer_id)""");
    long repeats = longs(payments, "SELECT coalesce(sum(repeats), 0) FROM payments")[0];
    long ignored = longs(orders, "SELECT coalesce(sum(ignored_results), 0) FROM orders")[0];
    long resendsRecorded = longs(orders, "SELECT coalesce(sum(resends), 0) FROM orders")[0];
    long parkedOrders = longs(orders, "SELECT count(*) FROM twinbox_inbox_parked")[0];
    long parkedPayments = longs(payments, "SELECT count(*) FROM twinbox_inbox_parked")[0];
    long outboxLeft = longs(orders, "SELECT count(*) FROM twinbox_outbox")[0]
        + longs(payments, "SELECT count(*) FROM twinbox_outbox")[0];

    List<Check> checks = new ArrayList<>();
    checks.add(Check.equal("orders placed (committed = rows in orders)", placed, orderRows.size()));
    checks.add(Check.equal("orders settled: PAID " + Check.count(paid) + " + REJECTED " + Check.count(rejected),
        orderRows.size(), paid + rejected));
    checks.add(Check.equal("orders stuck PENDING after drain", 0, pending));
    checks.add(Check.equal("payments rows (one per order)", orderRows.size(), paymentRows.size()));
    checks.add(Check.equal("orders without a payment / payments without an order", 0,
        missingPayment + strayPayments));
    checks.add(Check.equal("order status = payment outcome (PAID=CAPTURED)", 0, mismatched));
    checks.add(Check.equal("wallets (of " + Check.count(wallets[0]) + ") where initial - captured != balance", 0,
        wallets[1]));
    checks.add(Check.equalMoney("total debited from wallets = total captured", capturedCents, wallets[3]));
    checks.add(Check.equalMoney("total captured = sum of PAID orders", paidCents, capturedCents));
    checks.add(Check.equal("wallets below zero", 0, wallets[4]));
    checks.add(Check.equal("lost (placed, never paid or settled)", 0, lost));
    checks.add(Check.equal("duplicate effects (wallets debited twice)", 0, wallets[2]));
    checks.add(Check.equal("repeated OrderCreated caught by business key", resends, repeats));
    checks.add(Check.equal("repeated answers caught by state transition", resends, ignored));
    checks.add(Check.equal("repeats recorded by the order service", resends, resendsRecorded));
    checks.add(Check.equal("messages parked (orders + payments inbox)", 0, parkedOrders + parkedPayments));
    checks.add(Check.equal("outbox rows left (PENDING or FAILED)", 0, outboxLeft));
    return checks;
  }

  private static boolean matches(Entry order, Entry payment) {
    boolean sameOutcome = order.status().equals("PAID") ? payment.status().equals("CAPTURED")
        : order.status().equals("REJECTED") && payment.status().equals("DECLINED");
    return sameOutcome && order.amountCents() == payment.amountCents()
        && Objects.equals(order.customerId(), payment.customerId());
  }

  private static Map<UUID, Entry> entries(DataSource ds, String sql) throws SQLException {
    Map<UUID, Entry> rows = new HashMap<>();
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        rows.put(rs.getObject(1, UUID.class), new Entry(rs.getString(2), rs.getLong(3), rs.getString(4)));
      }
    }
    return rows;
  }

  /** The first row of a query, as longs. */
  static long[] longs(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      long[] values = new long[rs.getMetaData().getColumnCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = rs.getLong(i + 1);
      }
      return values;
    }
  }
}
