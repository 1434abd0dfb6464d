package io.twinbox.example;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The payment service as a process of its own, as it would be deployed: its database, its inbox
 * consumer of the orders topic, its relay to the payments topic. Runs until SIGTERM, then stops
 * gracefully. Killed with {@code kill -9} instead, it loses nothing: the relay's lease expires and
 * the next instance takes over; uncommitted consumer work rolls back and is redelivered; committed
 * work whose offsets were not committed is redelivered and skipped by the inbox.
 *
 * <p>Prints {@value #STARTED} once consuming and publishing.
 */
@Command(name = "payment-service", mixinStandardHelpOptions = true,
    description = "The example's payment service: consumes OrderCreated, debits wallets, publishes the outcome.")
public final class PaymentServiceMain implements Callable<Integer> {
  /** Printed on stdout once the service runs. */
  public static final String STARTED = "PAYMENT-SERVICE-STARTED";

  @Option(names = "--jdbc-url", required = true, description = "The payment service's own database.")
  String jdbcUrl;

  @Option(names = "--db-user", defaultValue = "postgres")
  String dbUser;

  @Option(names = "--db-password", defaultValue = "${env:PGPASSWORD}")
  String dbPassword;

  @Option(names = "--bootstrap-servers", required = true)
  String bootstrapServers;

  @Option(names = "--orders-topic", defaultValue = "orders")
  String ordersTopic;

  @Option(names = "--payments-topic", defaultValue = "payments")
  String paymentsTopic;

  @Option(names = "--group", defaultValue = PaymentService.CONSUMER, description = "Kafka consumer group id.")
  String group;

  @Option(names = "--instance-id", description = "Static group membership (group.instance.id): a restarted"
      + " instance takes its predecessor's partitions at once instead of after the session timeout.")
  String instanceId;

  @Option(names = "--lease-ttl-ms", defaultValue = "10000", description = "Relay lease length: how soon a"
      + " successor takes over the outbox after this process died.")
  long leaseTtlMs;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PaymentServiceMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setPoolName("payments");
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(dbUser);
    config.setPassword(dbPassword == null ? "" : dbPassword);
    config.setMaximumPoolSize(8);
    HikariDataSource pool = new HikariDataSource(config);
    PaymentService payments = new PaymentService(pool);
    payments.migrate();

    Map<String, Object> extra = new HashMap<>();
    if (instanceId != null) {
      extra.put("group.instance.id", instanceId);
    }
    RestartableConsumer consumer = Wiring.consumer("payment-service", payments.inbox(), pool,
        payments.orderCreatedHandler(), bootstrapServers, () -> group, ordersTopic, ConsumerSettings.DEFAULT_BATCH,
        ConsumerSettings.DEFAULT_RETRY, extra);
    RestartableRelay relay = Wiring.relay(payments.store(), "/payment-service", bootstrapServers, paymentsTopic,
        Duration.ofMillis(leaseTtlMs), t -> t);

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      consumer.close();
      relay.close();
      pool.close();
      stopped.countDown();
    }, "payment-service-shutdown"));
    consumer.start();
    relay.start();
    System.out.println(STARTED);
    System.out.flush();
    stopped.await();
    return 0;
  }
}
