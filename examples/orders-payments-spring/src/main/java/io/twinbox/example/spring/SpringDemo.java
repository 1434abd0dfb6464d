package io.twinbox.example.spring;

import io.twinbox.spring.kafka.TwinboxKafkaInboxConsumer;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Runs the Spring Boot example end to end: starts a Kafka broker (a child JVM, via the testkit)
 * and creates a fresh database (on the PostgreSQL at 127.0.0.1:5432, else an embedded one), starts
 * the application on them, places orders — every tenth one fails after writing its order and its
 * event, so it rolls back — waits until every order is settled, and verifies the outcome with
 * SQL. Exit code 0 only if every check holds.
 *
 * <p>Options: {@code --orders=N} (default 500), {@code --customers=N} (50), {@code
 * --initial-balance-cents=N} (20000).
 */
public final class SpringDemo {
  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(3);

  private SpringDemo() {}

  public static void main(String[] args) {
    Map<String, Long> options = new LinkedHashMap<>(Map.of("orders", 500L, "customers", 50L,
        "initial-balance-cents", 20_000L));
    for (String arg : args) {
      String[] kv = arg.replaceFirst("^--", "").split("=", 2);
      if (kv.length != 2 || !options.containsKey(kv[0]) || !kv[1].matches("[1-9][0-9]{0,8}")) {
        System.err.println("unknown option or value " + arg + "; options: --orders=N --customers=N"
            + " --initial-balance-cents=N (positive integers)");
        System.exit(2);
      }
      options.put(kv[0], Long.parseLong(kv[1]));
    }
    boolean ok = run(options.get("orders").intValue(), options.get("customers").intValue(),
        options.get("initial-balance-cents"));
    System.exit(ok ? 0 : 1);
  }

  /** Runs the scenario; true when every check holds. */
  public static boolean run(int orderCount, int customers, long initialBalanceCents) {
    try (KafkaBroker broker = KafkaBroker.start(); PostgresDatabase db = PostgresDatabase.create()) {
      broker.createTopic("order", 3);
      broker.createTopic("payment", 3);
      System.out.println("Kafka " + broker.bootstrapServers() + ", PostgreSQL database " + db.name());
      try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrdersPaymentsApplication.class)
          .properties(Map.of("spring.datasource.url", db.jdbcUrl(), "spring.datasource.username", db.user(),
              "spring.datasource.password", db.password(),
              "twinbox.kafka.bootstrap-servers", broker.bootstrapServers()))
          .run()) {
        return scenario(app, orderCount, customers, initialBalanceCents);
      }
    }
  }

  private static boolean scenario(ConfigurableApplicationContext app, int orderCount, int customers,
      long initialBalanceCents) {
    WalletRepository wallets = app.getBean(WalletRepository.class);
    OrderRepository orders = app.getBean(OrderRepository.class);
    OrderService orderService = app.getBean(OrderService.class);
    JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
    for (int c = 0; c < customers; c++) {
      wallets.save(new Wallet("customer-" + c, initialBalanceCents));
    }
    long start = System.nanoTime();
    List<String> rejected = new ArrayList<>();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 1; i <= orderCount + orderCount / 9; i++) {
      String customer = "customer-" + random.nextInt(customers);
      long amount = 100 + random.nextLong(4_900);
      if (i % 10 == 0) {
        try {
          orderService.placeOrderThenFail(customer, amount);
        } catch (OrderService.RejectedOrderException e) {
          rejected.add(e.orderId());
        }
      } else {
        orderService.placeOrder(customer, amount);
      }
    }
    long placed = orders.count();
    System.out.printf("placed %d orders, %d more rolled back; waiting for payments...%n", placed, rejected.size());
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    long pending;
    while ((pending = orders.countByStatus(PurchaseOrder.Status.PENDING)) > 0 && System.nanoTime() < deadline) {
      System.out.printf("  %d pending, %d paid, %d declined%n", pending, orders.countByStatus(PurchaseOrder.Status.PAID),
          orders.countByStatus(PurchaseOrder.Status.DECLINED));
      sleep(1000);
    }
    long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();

    Map<String, Boolean> checks = new LinkedHashMap<>();
    checks.put("every committed order settled (pending = " + pending + ")", pending == 0);
    long phantomOrders = rejected.isEmpty() ? 0 : count(jdbc, "purchase_order", "id", rejected);
    long phantomPayments = rejected.isEmpty() ? 0 : count(jdbc, "payment", "order_id", rejected);
    checks.put("rolled-back orders stored = " + phantomOrders + ", paid = " + phantomPayments,
        phantomOrders == 0 && phantomPayments == 0);
    long payments = jdbc.queryForObject("SELECT count(*) FROM payment", Long.class);
    checks.put("one payment per order (" + payments + " for " + placed + ")", payments == placed);
    long mismatched = jdbc.queryForObject("SELECT count(*) FROM purchase_order o JOIN payment p ON p.order_id = o.id"
        + " WHERE (o.status = 'PAID') <> p.captured OR o.status = 'PENDING'", Long.class);
    checks.put("order states agree with payments (" + mismatched + " disagree)", mismatched == 0);
    long balances = jdbc.queryForObject("SELECT coalesce(sum(balance_cents), 0) FROM wallet", Long.class);
    long captured = jdbc.queryForObject("SELECT coalesce(sum(amount_cents), 0) FROM payment WHERE captured", Long.class);
    checks.put("wallets = opening balances - captured payments, to the cent",
        balances == customers * initialBalanceCents - captured);
    // The relay deletes a row after the broker's ack: allow that last commit a moment.
    long drainDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    long unsent;
    while ((unsent = jdbc.queryForObject("SELECT count(*) FROM twinbox_outbox", Long.class)) > 0
        && System.nanoTime() < drainDeadline) {
      sleep(200);
    }
    checks.put("outbox drained (" + unsent + " rows left)", unsent == 0);
    var stats = app.getBean(TwinboxKafkaInboxConsumer.class).consumer().stats();

    System.out.printf("%nsettled in %d s: %d paid, %d declined; inbox processed %d, duplicates skipped %d, parked %d%n",
        seconds, orders.countByStatus(PurchaseOrder.Status.PAID), orders.countByStatus(PurchaseOrder.Status.DECLINED),
        stats.processed(), stats.duplicates(), stats.parked());
    checks.forEach((name, ok) -> System.out.printf("  [%s] %s%n", ok ? " OK " : "FAIL", name));
    boolean ok = !checks.containsValue(false);
    System.out.println(ok ? "ALL CHECKS PASSED" : "SOME CHECKS FAILED");
    return ok;
  }

  private static long count(JdbcTemplate jdbc, String table, String column, List<String> ids) {
    return jdbc.queryForObject("SELECT count(*) FROM " + table + " WHERE " + column + " = ANY (?)", Long.class,
        (Object) ids.toArray(String[]::new));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
