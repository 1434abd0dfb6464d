package io.twinbox.example;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The demo command: runs the orders → payments example end to end and proves, with SQL, that every
 * order had exactly one effect. By default it starts everything it needs (an embedded PostgreSQL
 * and a Kafka broker process) and removes it again; {@code --jdbc-url} and {@code
 * --bootstrap-servers} point it at real servers instead. {@code --chaos} duplicates deliveries and
 * restarts and crashes relays and consumers along the way.
 *
 * <p>Exit code 0 when every check of the verification table holds, 1 when one does not, 2 when the
 * run itself could not be carried out. The {@code --orders} are placed as fast as possible (a burst,
 * reported as throughput); once they have settled, a short steady phase places orders at {@code
 * --steady-rate} for {@code --steady-seconds} and reports their latency. Run it with {@code
 * ./mvnw -B -q -Pdemo -DskipTests package} from the repository root (extra options: {@code
 * -Ddemo.args="--orders 20000 --chaos"}).
 */
@Command(name = "twinbox-demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Orders -> Kafka -> payments -> Kafka -> orders, through Twinbox outboxes and inboxes;"
        + " ends with a verification table. Exit code 0 iff every check holds.")
public final class Demo implements Callable<Integer> {
  @Spec
  private CommandSpec spec;

  @Option(names = "--orders", defaultValue = "5000", description = "Orders to place (default ${DEFAULT-VALUE}).")
  int orders;

  @Option(names = "--customers", defaultValue = "500", description = "Customers, one wallet each (default ${DEFAULT-VALUE}).")
  int customers;

  @Option(names = "--initial-balance-cents", defaultValue = "-1", paramLabel = "CENTS",
      description = "Every wallet's opening balance. Default: about 3/4 of what an average customer orders,"
          + " so a good share of orders is declined.")
  long initialBalanceCents;

  @Option(names = "--chaos", description = "Duplicate ~20% of deliveries, crash consumers after their DB commit,"
      + " restart relays and consumers, replay the orders topic, repeat some OrderCreated under new ids.")
  boolean chaos;

  @Option(names = "--writers", defaultValue = "4", description = "Threads placing orders (default ${DEFAULT-VALUE}).")
  int writers;

  @Option(names = "--consumers", defaultValue = "" + ConsumerSettings.DEFAULT_INSTANCES, paramLabel = "N",
      description = "Kafka consumers (threads) per service, sharing its partitions (default ${DEFAULT-VALUE}).")
  int consumers;

  @Option(names = "--consumer-batch", defaultValue = "" + ConsumerSettings.DEFAULT_BATCH, paramLabel = "N",
      description = "Messages per consumer transaction (default ${DEFAULT-VALUE}).")
  int consumerBatch;

  @Option(names = "--rate", defaultValue = "0", paramLabel = "ORDERS_PER_SECOND",
      description = "Pace the --orders; 0 = as fast as possible, a burst (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--steady-rate", defaultValue = "100", paramLabel = "ORDERS_PER_SECOND",
      description = "After the --orders have settled, place orders at this rate to measure steady-state latency"
          + " (default ${DEFAULT-VALUE}).")
  int steadyRate;

  @Option(names = "--steady-seconds", defaultValue = "5", paramLabel = "SECONDS",
      description = "How long the steady phase places orders; 0 = no steady phase (default ${DEFAULT-VALUE}).")
  int steadySeconds;

  @Option(names = "--jdbc-url", paramLabel = "URL", description = "A database on an existing PostgreSQL server"
      + " (e.g. jdbc:postgresql://127.0.0.1:5432/postgres); two fresh databases are created there."
      + " Default: an embedded PostgreSQL.")
  String jdbcUrl;

  @Option(names = "--db-user", defaultValue = "postgres", description = "User for --jdbc-url (default ${DEFAULT-VALUE}).")
  String dbUser;

  @Option(names = "--db-password", defaultValue = "${env:PGPASSWORD}", description = "Password for --jdbc-url"
      + " (default: $PGPASSWORD).")
  String dbPassword;

  @Option(names = "--keep-databases", description = "Keep the databases created on --jdbc-url's server.")
  boolean keepDatabases;

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "An existing Kafka cluster;"
      + " topics get a per-run suffix. Default: a Kafka broker process started for the run.")
  String bootstrapServers;

  @Option(names = "--drain-timeout", defaultValue = "180", paramLabel = "SECONDS",
      description = "How long to wait for everything to settle after the last order (default ${DEFAULT-VALUE}).")
  int drainTimeoutSeconds;

  @Option(names = "--seed", defaultValue = "42", description = "Seed of the orders' customers and amounts.")
  long seed;

  private DemoRun.Result result;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Demo()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (orders < 1 || customers < 1 || writers < 1 || consumers < 1 || consumerBatch < 1 || consumerBatch > 1000
        || rate < 0 || steadyRate < 1 || steadySeconds < 0 || drainTimeoutSeconds < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--orders, --customers, --writers, --consumers,"
          + " --consumer-batch (up to 1000), --steady-rate and --drain-timeout must be >= 1, --rate and"
          + " --steady-seconds >= 0");
    }
    DemoRun.Steady steady = new DemoRun.Steady(steadyRate, Duration.ofSeconds(steadySeconds));
    long balance = initialBalanceCents >= 0 ? initialBalanceCents
        : defaultBalance(orders + steady.orders(), customers);
    DemoRun.Settings settings = new DemoRun.Settings(orders, customers, balance, writers, rate, steady,
        new ConsumerSettings(consumers, consumerBatch, ConsumerSettings.DEFAULT_RETRY),
        chaos ? Chaos.Settings.demo() : Chaos.Settings.off(), Duration.ofSeconds(drainTimeoutSeconds), seed);
    out.printf("Twinbox demo: %s orders from %s customers, %s in each wallet, chaos %s%n",
        Check.count(orders + steady.orders()), Check.count(customers), Check.money(balance), chaos ? "ON" : "off");
    out.printf("  %-7s %s orders %s, for throughput%n", rate == 0 ? "burst:" : "paced:", Check.count(orders),
        rate == 0 ? "as fast as possible" : "at " + rate + "/s");
    if (steady.orders() > 0) {
      out.printf("  steady: then %s orders at %d/s for %d s, for latency%n", Check.count(steady.orders()), steadyRate,
          steadySeconds);
    }
    out.println("  order service:   order + OrderCreated in one transaction -> outbox -> relay -> Kafka 'orders'");
    out.println("  payment service: inbox -> debit the wallet if the balance suffices -> PaymentCaptured/Declined"
        + " -> outbox -> Kafka 'payments'");
    out.println("  order service:   inbox -> PENDING -> PAID / REJECTED");
    out.println("Starting the servers...");
    out.flush();
    long started = System.nanoTime();
    try (Environment env = Environment.start(jdbcUrl, dbUser, dbPassword, bootstrapServers, keepDatabases)) {
      out.printf("Ready in %.1f s: %s%n", (System.nanoTime() - started) / 1e9, env.description());
      out.flush();
      result = DemoRun.run(env, settings, out);
    } catch (Exception e) {
      if (result == null) {
        spec.commandLine().getErr().println("The demo could not run: " + e);
        e.printStackTrace(spec.commandLine().getErr());
        return 2;
      }
      spec.commandLine().getErr().println("Shutting the servers down failed: " + e);
    }
    return result.passed() ? 0 : 1;
  }

  /** About 3/4 of the average customer's total order amount, in whole currency units. */
  static long defaultBalance(int orders, int customers) {
    double perCustomer = (double) orders / customers * OrderWriters.averageCents() * 0.75;
    return Math.max(100, Math.round(perCustomer / 100) * 100);
  }

  /** The last run's result (for tests running the command in-process), or null. */
  DemoRun.Result result() {
    return result;
  }
}
