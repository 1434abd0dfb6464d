package io.twinbox.example;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real servers of the example's tests: two fresh databases from the testkit (the local
 * PostgreSQL, else an embedded one) and the testkit's shared Kafka broker process, with topics and
 * groups of their own per scenario. Stateless helpers.
 */
final class TestServers {
  private static final AtomicInteger SCENARIOS = new AtomicInteger();

  private TestServers() {}

  /** Fresh topics (8 partitions each) and group ids on the shared broker, named after the scenario. */
  static Topics topics(String scenario) {
    KafkaBroker broker = KafkaBroker.shared();
    String suffix = "-" + scenario + "-" + SCENARIOS.incrementAndGet() + "-" + System.nanoTime() % 100_000;
    Topics topics = new Topics(broker.bootstrapServers(), "orders" + suffix, "payments" + suffix, suffix);
    broker.createTopic(topics.orders(), Topics.PARTITIONS);
    broker.createTopic(topics.payments(), Topics.PARTITIONS);
    return topics;
  }

  /** An environment on two testkit databases and {@link #topics}. */
  static Environment environment(PostgresDatabase orders, PostgresDatabase payments, String scenario) {
    return Environment.of(orders.dataSource(), payments.dataSource(), topics(scenario),
        "testkit databases " + orders.name() + ", " + payments.name());
  }

  /** Demo settings for a test: 4 writers, a burst only (no steady phase), a fixed seed. */
  static DemoRun.Settings settings(int orders, int customers, Chaos.Settings chaos) {
    return new DemoRun.Settings(orders, customers, Demo.defaultBalance(orders, customers), 4, 0, DemoRun.Steady.off(),
        ConsumerSettings.defaults(), chaos, Duration.ofSeconds(150), 7);
  }

  /** Collects what a run prints, and echoes it to stdout (surefire keeps it in the report file). */
  static final class Output {
    private final StringWriter text = new StringWriter();
    final PrintWriter writer = new PrintWriter(new Tee(text), true);

    String text() {
      return text.toString();
    }
  }

  private static final class Tee extends java.io.Writer {
    private final StringWriter copy;

    Tee(StringWriter copy) {
      this.copy = copy;
    }

    @Override
    public void write(char[] buf, int off, int len) {
      copy.write(buf, off, len);
      System.out.print(new String(buf, off, len));
    }

    @Override
    public void flush() {
      System.out.flush();
    }

    @Override
    public void close() {
      flush();
    }
  }
}
