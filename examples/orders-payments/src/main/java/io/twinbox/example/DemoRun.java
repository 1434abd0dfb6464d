package io.twinbox.example;

import io.twinbox.RetryPolicy;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One run of the demo on a given {@link Environment}: set up both services, place the orders while
 * printing progress every second, wait until everything has drained, stop everything, then verify
 * with SQL and print the table. The demo command and the tests both call {@link #run}.
 *
 * <p>Not thread-safe: one run at a time per environment.
 */
public final class DemoRun {
  private static final Duration TICK = Duration.ofSeconds(1);

  /**
   * What to run.
   *
   * @param orders how many orders to place
   * @param customers how many customers (wallets) they are spread over
   * @param initialBalanceCents every wallet's opening balance
   * @param writers threads placing orders
   * @param ratePerSecond orders per second, 0 for as fast as possible
   * @param consuming consumer instances per service and messages per transaction
   * @param chaos what to disturb
   * @param drainTimeout how long to wait, after the last order, for everything to settle
   * @param seed makes the orders (customers, amounts) reproducible
   */
  public record Settings(int orders, int customers, long initialBalanceCents, int writers, int ratePerSecond,
      ConsumerSettings consuming, Chaos.Settings chaos, Duration drainTimeout, long seed) {}

  /**
   * What happened.
   *
   * @param checks the verification table, checks and figures
   * @param placed orders committed
   * @param settledAfter from the first order to the moment every order was settled ({@code null} if never)
   * @param latency order placed → order PAID/REJECTED, from the database's own timestamps
   * @param duplicatesSuppressed deliveries the inboxes skipped as already processed
   * @param chaos what the chaos did
   */
  public record Result(List<Check> checks, long placed, Duration settledAfter, Latency.Figures latency,
      long duplicatesSuppressed, Chaos.Counts chaos) {
    /** True when every check passed. */
    public boolean passed() {
      return checks.stream().allMatch(Check::ok);
    }
  }

  private DemoRun() {}

  /** Runs the demo; prints progress and the table to {@code out}. */
  public static Result run(Environment env, Settings s, PrintWriter out) throws Exception {
    OrderService orders = new OrderService(env.orders());
    PaymentService payments = new PaymentService(env.payments());
    orders.migrate();
    payments.migrate();
    payments.openWallets(s.customers(), s.initialBalanceCents());

    Chaos chaos = new Chaos(s.chaos());
    OrderWriters writers = new OrderWriters(orders, s.orders(), s.customers(), s.ratePerSecond(), s.seed(), chaos);
    Duration settledAfter;
    long duplicates;
    // Closed in reverse order: the chaos timers stop before the services do.
    try (RunningServices services = RunningServices.start(orders, payments, env.topics(), chaos,
        s.consuming()); chaos) {
      Progress progress = new Progress(writers, services, env, s.orders(), chaos, out);
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "demo-progress");
        t.setDaemon(true);
        return t;
      });
      try {
        ticker.scheduleAtFixedRate(progress::print, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        writers.start(s.writers());
        writers.await();
        settledAfter = Drain.awaitSettled(env.orders(), writers.placed(), progress.startNanos(), s.drainTimeout());
        chaos.awaitFirstStrikes(Duration.ofSeconds(15));
        chaos.calm();
        services.stopReplaying();
        if (settledAfter != null) {
          Drain.awaitQuiet(env, s.drainTimeout());
        }
        duplicates = services.duplicatesSuppressed();
      } finally {
        ticker.shutdownNow();
        ticker.awaitTermination(5, TimeUnit.SECONDS);
      }
      progress.print();
      out.println(settledAfter == null
          ? "Not every order settled within " + s.drainTimeout().toSeconds() + " s after the last one was placed."
          : "All " + Check.count(writers.placed()) + " orders settled; stopping the services.");
      out.flush();
    }
    Latency.Figures latency = Latency.measure(env.orders());
    List<Check> checks = new ArrayList<>(Verification.verify(env.orders(), env.payments(), writers.placed(),
        chaos.counts().resends()));
    checks.addAll(figures(duplicates, writers.placed(), settledAfter, latency, chaos));
    Result result = new Result(checks, writers.placed(), settledAfter, latency, duplicates, chaos.counts());
    Table.print(out, result);
    return result;
  }

  private static List<Check> figures(long duplicates, long placed, Duration settledAfter, Latency.Figures latency,
      Chaos chaos) {
    List<Check> rows = new ArrayList<>();
    rows.add(Check.info("duplicates suppressed by the inboxes", Check.count(duplicates)));
    if (chaos.settings().any()) {
      Chaos.Counts c = chaos.counts();
      rows.add(Check.info("chaos: messages published twice", Check.count(c.sentTwice())));
      rows.add(Check.info("chaos: consumer crashes after DB commit", Check.count(c.crashes())));
      rows.add(Check.info("chaos: relay / consumer restarts", c.relayRestarts() + " / " + c.consumerRestarts()));
      if (chaos.settings().replay()) {
        // The replaying consumer's first start is a replay too; each restart is another.
        rows.add(Check.info("chaos: replays of the orders topic", Check.count(c.replays() + 1L)));
      }
      rows.add(Check.info("chaos: OrderCreated repeated under a new id", Check.count(c.resends())));
    }
    if (settledAfter != null) {
      double seconds = settledAfter.toMillis() / 1000.0;
      rows.add(Check.info("end to end: all orders settled after", String.format(Locale.ROOT, "%.1f s (%,.0f orders/s)", seconds,
          placed / Math.max(seconds, 0.001))));
    }
    rows.add(Check.info("order -> PAID/REJECTED latency p50 / p99 / max", latency.describe()));
    return rows;
  }

  /** Waits for the end of a run. */
  static final class Drain {
    private Drain() {}

    /** Waits until every placed order is settled; the time since {@code startNanos}, or null on timeout. */
    static Duration awaitSettled(DataSource orders, long placed, long startNanos, Duration timeout)
        throws SQLException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (Progress.settled(orders) >= placed) {
          return Duration.ofNanos(System.nanoTime() - startNanos);
        }
        Thread.sleep(50);
      }
      return null;
    }

    /** Waits until both outboxes are empty and both consumer groups have committed everything. */
    static void awaitQuiet(Environment env, Duration timeout) throws SQLException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      try (ConsumerLag lag = new ConsumerLag(env.topics().bootstrapServers())) {
        while (System.nanoTime() < deadline) {
          long outbox = Verification.longs(env.orders(), "SELECT count(*) FROM twinbox_outbox")[0]
              + Verification.longs(env.payments(), "SELECT count(*) FROM twinbox_outbox")[0];
          if (outbox == 0 && lag.of(env.topics().paymentGroup(), env.topics().orders()) == 0
              && lag.of(env.topics().orderGroup(), env.topics().payments()) == 0) {
            return;
          }
          Thread.sleep(100);
        }
      }
    }
  }
}
