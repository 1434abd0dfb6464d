package io.twinbox.example;

import io.twinbox.RetryPolicy;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One run of the demo on a given {@link Environment}: set up both services, then two phases while
 * printing progress every second — a <b>burst</b> (the orders placed as fast as possible, for
 * throughput; their order → settled times are mostly queueing) and, once it has settled, a short
 * <b>steady</b> phase at a modest fixed rate (for latency) — wait until everything has drained, stop
 * everything, then verify both phases together with SQL and print the table. The demo command and
 * the tests both call {@link #run}.
 *
 * <p>Not thread-safe: one run at a time per environment.
 */
public final class DemoRun {
  private static final Duration TICK = Duration.ofSeconds(1);

  /**
   * What to run.
   *
   * @param orders how many orders the first phase places
   * @param customers how many customers (wallets) they are spread over
   * @param initialBalanceCents every wallet's opening balance
   * @param writers threads placing orders
   * @param ratePerSecond the first phase's orders per second, 0 for as fast as possible (a burst)
   * @param steady the paced phase after it
   * @param consuming consumer instances per service and messages per transaction
   * @param chaos what to disturb
   * @param drainTimeout how long to wait, after the last order of a phase, for everything to settle
   * @param seed makes the orders (customers, amounts) reproducible
   */
  public record Settings(int orders, int customers, long initialBalanceCents, int writers, int ratePerSecond,
      Steady steady, ConsumerSettings consuming, Chaos.Settings chaos, Duration drainTimeout, long seed) {}

  /**
   * The paced phase: {@code ratePerSecond × duration} orders at that rate, started once the first
   * phase has settled, so that its latency is the pipeline's and not a queue's.
   *
   * @param ratePerSecond orders per second
   * @param duration how long to place them for; zero for no paced phase
   */
  public record Steady(int ratePerSecond, Duration duration) {
    /** No paced phase. */
    public static Steady off() {
      return new Steady(0, Duration.ZERO);
    }

    /** The orders it places. */
    public int orders() {
      return ratePerSecond <= 0 ? 0 : (int) (ratePerSecond * duration.toMillis() / 1000);
    }
  }

  /**
   * What happened.
   *
   * @param checks the verification table, checks and figures
   * @param placed orders committed, over both phases
   * @param first the first phase (the burst unless paced by {@link Settings#ratePerSecond})
   * @param steady the paced phase, or null if there was none
   * @param duplicatesSuppressed deliveries the inboxes skipped as already processed
   * @param chaos what the chaos did
   */
  public record Result(List<Check> checks, long placed, Phase first, Phase steady, long duplicatesSuppressed,
      Chaos.Counts chaos) {
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
    String firstName = s.ratePerSecond() == 0 ? "burst" : "paced";
    OrderWriters first = new OrderWriters(orders, s.orders(), s.customers(), s.ratePerSecond(), s.seed(), chaos);
    int steadyOrders = s.steady().orders();
    OrderWriters steady = steadyOrders == 0 ? null : new OrderWriters(orders, steadyOrders, s.customers(),
        s.steady().ratePerSecond(), s.seed() + 1, chaos);
    Duration firstSettled;
    Duration steadySettled = null;
    OffsetDateTime steadyFrom = null;
    long duplicates;
    // Closed in reverse order: the chaos timers stop before the services do.
    try (RunningServices services = RunningServices.start(orders, payments, env.topics(), chaos,
        s.consuming()); chaos) {
      Progress progress = new Progress(services, env, s.orders() + steadyOrders, chaos, out);
      progress.phase(firstName, first, 0);
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "demo-progress");
        t.setDaemon(true);
        return t;
      });
      try {
        ticker.scheduleAtFixedRate(progress::print, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        first.start(s.writers());
        first.await();
        firstSettled = Drain.awaitSettled(env.orders(), first.placed(), progress.startNanos(), s.drainTimeout());
        if (firstSettled != null && steady != null) {
          // Only now: the first phase's queue is gone, so the paced orders wait behind nothing.
          steadyFrom = Latency.now(env.orders());
          long steadyStart = System.nanoTime();
          progress.phase("steady", steady, first.placed());
          steady.start(s.writers());
          steady.await();
          steadySettled = Drain.awaitSettled(env.orders(), first.placed() + steady.placed(), steadyStart,
              s.drainTimeout());
        }
        chaos.awaitFirstStrikes(Duration.ofSeconds(15));
        chaos.calm();
        services.stopReplaying();
        if (firstSettled != null && (steady == null || steadySettled != null)) {
          Drain.awaitQuiet(env, s.drainTimeout());
        }
        duplicates = services.duplicatesSuppressed();
      } finally {
        ticker.shutdownNow();
        ticker.awaitTermination(5, TimeUnit.SECONDS);
      }
      progress.print();
      long placed = first.placed() + (steady == null ? 0 : steady.placed());
      out.println(firstSettled == null || (steady != null && steadySettled == null)
          ? "Not every order settled within " + s.drainTimeout().toSeconds() + " s after the last one was placed."
          : "All " + Check.count(placed) + " orders settled; stopping the services.");
      out.flush();
    }
    Phase firstPhase = new Phase(firstName, s.ratePerSecond(), first.placed(), first.placing(), firstSettled,
        Latency.measure(env.orders(), null, steadyFrom));
    Phase steadyPhase = steadyFrom == null ? null : new Phase("steady", s.steady().ratePerSecond(), steady.placed(),
        steady.placing(), steadySettled, Latency.measure(env.orders(), steadyFrom, null));
    long placed = first.placed() + (steadyPhase == null ? 0 : steadyPhase.placed());
    List<Check> checks = new ArrayList<>(Verification.verify(env.orders(), env.payments(), placed,
        chaos.counts().resends()));
    checks.addAll(figures(duplicates, firstPhase, steadyPhase, chaos));
    Result result = new Result(checks, placed, firstPhase, steadyPhase, duplicates, chaos.counts());
    Table.print(out, result);
    return result;
  }

  private static List<Check> figures(long duplicates, Phase first, Phase steady, Chaos chaos) {
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
    if (first.ratePerSecond() == 0) {
      if (first.settledAfter() != null) {
        rows.add(Check.info("burst throughput (" + Check.count(first.placed()) + " orders, unpaced)",
            String.format(Locale.ROOT, "%,.0f orders/s (all settled in %.1f s)", first.settledPerSecond(),
                first.settledAfter().toMillis() / 1000.0)));
      }
      rows.add(Check.info("burst backlog wait p50 / p99 / max (queueing)", first.latency().describe()));
    } else {
      if (first.settledAfter() != null) {
        rows.add(Check.info("first phase: " + Check.count(first.placed()) + " orders at " + first.ratePerSecond()
            + "/s", String.format(Locale.ROOT, "all settled in %.1f s", first.settledAfter().toMillis() / 1000.0)));
      }
      rows.add(Check.info("latency at " + first.ratePerSecond() + " orders/s p50 / p99 / max",
          first.latency().describe()));
    }
    if (steady != null) {
      rows.add(Check.info("steady phase: orders placed at " + steady.ratePerSecond() + "/s", String.format(Locale.ROOT,
          "%s in %.1f s (%,.0f/s achieved)", Check.count(steady.placed()), steady.placing().toMillis() / 1000.0,
          steady.placedPerSecond())));
      rows.add(Check.info("steady-state latency at " + steady.ratePerSecond() + " orders/s p50 / p99 / max",
          steady.latency().describe() + (chaos.settings().any() ? " (under chaos)" : "")));
    }
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
