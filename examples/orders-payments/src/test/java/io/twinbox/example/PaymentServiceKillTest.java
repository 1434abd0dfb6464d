package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.internal.ChildProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2 (FAULTS D1, D2, B1): the payment service runs as a JVM of its own
 * ({@link PaymentServiceMain}) and is killed with {@code kill -9} at random moments, five times,
 * while orders keep coming; each time a new process is started in its place. After the drain, SQL
 * over both databases finds every order paid for or declined exactly once: no lost effect, no
 * double effect, wallets exact to the cent.
 */
class PaymentServiceKillTest {
  private static final int ORDERS = 2_000;
  private static final int RATE = 150;
  private static final int KILLS = 5;
  private static final List<String> JVM = List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1");
  private static PostgresDatabase ordersDb;
  private static PostgresDatabase paymentsDb;
  private final List<Process> processes = new ArrayList<>();
  private Path dir;

  @BeforeAll
  static void databases() {
    ordersDb = PostgresDatabase.create();
    paymentsDb = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    ordersDb.close();
    paymentsDb.close();
  }

  @AfterEach
  void killLeftovers() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void killedFiveTimesNothingLostNothingTwice() throws Exception {
    Topics topics = TestServers.topics("kill9");
    dir = Files.createDirectories(Path.of("target", "payment-service-logs").toAbsolutePath());
    OrderService orders = new OrderService(ordersDb.dataSource());
    PaymentService payments = new PaymentService(paymentsDb.dataSource());
    orders.migrate();
    payments.migrate();
    payments.openWallets(300, Demo.defaultBalance(ORDERS, 300));

    Random random = new Random(3);
    List<String> kills = new ArrayList<>();
    long placed;
    try (RestartableRelay relay = Wiring.relay(orders.store(), "/order-service", topics.bootstrapServers(),
            topics.orders(), Duration.ofSeconds(10), t -> t);
        RestartableConsumer consumer = Wiring.consumer("order-service", orders.inbox(), ordersDb.dataSource(),
            orders.paymentResultHandler(), topics.bootstrapServers(), topics::orderGroup, topics.payments(),
            ConsumerSettings.DEFAULT_BATCH, ConsumerSettings.DEFAULT_RETRY, Map.of())) {
      relay.start();
      consumer.start();
      Process service = startPaymentService(topics, 0);
      OrderWriters writers = new OrderWriters(orders, ORDERS, 300, RATE, 11, new Chaos(Chaos.Settings.off()));
      writers.start(2);
      long applied = 0;
      for (int k = 1; k <= KILLS; k++) {
        // A random point while it works: after it has applied 50-250 more payments, then 0-300 ms later.
        long target = applied + 50 + random.nextInt(200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while ((applied = payments()) < target && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        Thread.sleep(random.nextInt(300));
        applied = payments();
        service.destroyForcibly(); // SIGKILL: no shutdown hook, no lease release, no group leave
        assertThat(service.waitFor(10, TimeUnit.SECONDS)).isTrue();
        kills.add("kill " + k + " after " + applied + " payments (placed " + writers.placed() + ")");
        service = startPaymentService(topics, k);
      }
      writers.await();
      placed = writers.placed();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (Progress.settled(ordersDb.dataSource()) < placed && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      stopGracefully(service);
    }

    List<Check> checks = Verification.verify(ordersDb.dataSource(), paymentsDb.dataSource(), placed, 0);
    System.out.println("A2: " + String.join("; ", kills));
    checks.forEach(c -> System.out.println("A2: " + c));
    assertThat(checks).allMatch(Check::ok);
    assertThat(placed).isEqualTo(ORDERS);
    assertThat(kills).as("every kill hit a working service").allMatch(k -> !k.contains(" after 0 payments"));
    assertThat(Verification.longs(paymentsDb.dataSource(),
        "SELECT count(*) FROM twinbox_inbox WHERE consumer = 'payment-service'")[0])
        .as("one inbox record per OrderCreated").isEqualTo(ORDERS);
  }

  private static long payments() throws java.sql.SQLException {
    return Verification.longs(paymentsDb.dataSource(), "SELECT count(*) FROM payments")[0];
  }

  /** Starts generation {@code n} of the payment service and waits until it runs. */
  private Process startPaymentService(Topics topics, int n) throws InterruptedException {
    Path log = dir.resolve("payment-service-" + n + ".log");
    Process p = ChildProcess.start(dir, log, JVM, PaymentServiceMain.class.getName(), List.of(
        "--jdbc-url", paymentsDb.jdbcUrl(), "--db-user", paymentsDb.user(), "--db-password", paymentsDb.password(),
        "--bootstrap-servers", topics.bootstrapServers(), "--orders-topic", topics.orders(),
        "--payments-topic", topics.payments(), "--group", topics.paymentGroup(),
        "--instance-id", "payment-service-1", "--lease-ttl-ms", "3000"));
    processes.add(p);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!read(log).contains(PaymentServiceMain.STARTED)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("payment service " + n + " did not start:\n" + ChildProcess.tail(log, 40));
      }
      Thread.sleep(50);
    }
    return p;
  }

  /** SIGTERM (not Process.destroy(), which closes stdin and makes the testkit's ChildMain halt at once). */
  private static void stopGracefully(Process p) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
