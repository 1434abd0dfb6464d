package io.twinbox.example;

import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's {@code --chaos}: every way a message reaches a consumer more than once, on purpose.
 *
 * <ul>
 *   <li><b>Duplicate publishes</b> ({@link DuplicatingTransport}): a share of every relay's messages
 *       is sent twice under the same message id.
 *   <li><b>Crashes after the database commit</b> ({@link CrashAfterCommit}): a share of consumer
 *       transactions kill the consumer's thread right after committing, before the offset commit;
 *       a supervisor tick revives the consumer, which receives the batch again.
 *   <li><b>Restarts</b>: relays and consumers are closed and recreated on a timer (rolling deploys).
 *   <li><b>Replays</b>: a second payment-service consumer whose offsets are never kept: each of its
 *       restarts joins a new group and reads the orders topic from the beginning again.
 *   <li><b>Repeated commands</b>: a share of orders get a second {@code OrderCreated} under a
 *       <em>new</em> message id — invisible to the inbox; caught by the payment's business key,
 *       whose repeated answer is caught by the order's state transition.
 * </ul>
 *
 * <p>Thread-safe. {@link #calm()} stops the disturbances (for the drain); {@link #close()} stops the timer.
 */
public final class Chaos implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Chaos.class);
  private static final long SUPERVISOR_TICK_MS = 250;

  /**
   * What to inject; shares are 0–1, intervals of zero mean never.
   *
   * @param duplicateShare messages published twice
   * @param crashShare consumer commits followed by a crash
   * @param resendShare orders whose {@code OrderCreated} is emitted again under a new id
   * @param relayRestartEvery interval of relay restarts (one relay at a time, round robin)
   * @param consumerRestartEvery interval of consumer restarts (one at a time, round robin)
   * @param replayEvery interval at which the replaying payment-service consumer starts over from
   *     the beginning of the orders topic; zero for no replaying consumer
   */
  public record Settings(double duplicateShare, double crashShare, double resendShare, Duration relayRestartEvery,
      Duration consumerRestartEvery, Duration replayEvery) {

    /** No chaos at all. */
    public static Settings off() {
      return new Settings(0, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }

    /**
     * The demo's {@code --chaos}: 20% of messages published twice, 3% of consumer commits followed by
     * a crash, 2% of orders repeated under a new id, a relay restart every 3 s, a consumer restart
     * every 4 s, a replay of the orders topic every 20 s.
     */
    public static Settings demo() {
      return new Settings(0.20, 0.03, 0.02, Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(20));
    }

    /** True when a replaying consumer runs. */
    public boolean replay() {
      return !replayEvery.isZero();
    }

    public boolean any() {
      return duplicateShare > 0 || crashShare > 0 || resendShare > 0 || !relayRestartEvery.isZero()
          || !consumerRestartEvery.isZero() || replay();
    }
  }

  /** What the chaos did, for the report. */
  public record Counts(long sentTwice, long crashes, long resends, int relayRestarts, int consumerRestarts,
      int replays) {}

  private final Settings settings;
  private final AtomicLong sentTwice = new AtomicLong();
  private final AtomicLong crashes = new AtomicLong();
  private final AtomicLong resends = new AtomicLong();
  private final AtomicInteger relayRestarts = new AtomicInteger();
  private final AtomicInteger consumerRestarts = new AtomicInteger();
  private final AtomicInteger replays = new AtomicInteger();
  private final List<ScheduledExecutorService> timers = new ArrayList<>();
  private volatile boolean calm;

  public Chaos(Settings settings) {
    this.settings = settings;
    if (settings.crashShare() > 0) {
      CrashAfterCommit.quietCrashes();
    }
  }

  public Settings settings() {
    return settings;
  }

  /** Wraps each relay's transport: duplicates a share of the messages. */
  UnaryOperator<Transport> transports() {
    return settings.duplicateShare() <= 0 ? t -> t
        : t -> new DuplicatingTransport(t, settings.duplicateShare(), sentTwice);
  }

  /** Wraps each consumer's data source: crashes after a share of the commits. */
  UnaryOperator<DataSource> consumerDataSources() {
    return settings.crashShare() <= 0 ? ds -> ds
        : ds -> new CrashAfterCommit(ds,
            () -> !calm && ThreadLocalRandom.current().nextDouble() < settings.crashShare(), crashes);
  }

  /** True when the order just placed should get a second {@code OrderCreated}; counts it. */
  boolean resendThisOrder() {
    if (calm || settings.resendShare() <= 0 || ThreadLocalRandom.current().nextDouble() >= settings.resendShare()) {
      return false;
    }
    resends.incrementAndGet();
    return true;
  }

  /** Starts the restart timers and the supervisor that revives crashed consumers. */
  void start(List<RestartableRelay> relays, List<RestartableConsumer> consumers, List<RestartableConsumer> replayers) {
    List<RestartableConsumer> all = new ArrayList<>(consumers);
    all.addAll(replayers);
    every(Duration.ofMillis(SUPERVISOR_TICK_MS), "supervisor", () -> all.forEach(RestartableConsumer::reviveIfDead));
    AtomicInteger nextRelay = new AtomicInteger();
    every(settings.relayRestartEvery(), "relay-restarts", () -> {
      relays.get(nextRelay.getAndIncrement() % relays.size()).restart();
      relayRestarts.incrementAndGet();
    });
    AtomicInteger nextConsumer = new AtomicInteger();
    every(settings.consumerRestartEvery(), "consumer-restarts", () -> {
      consumers.get(nextConsumer.getAndIncrement() % consumers.size()).restart();
      consumerRestarts.incrementAndGet();
    });
    if (!replayers.isEmpty()) {
      every(settings.replayEvery(), "replays", () -> {
        replayers.forEach(RestartableConsumer::restart);
        replays.incrementAndGet();
      });
    }
  }

  /**
   * Waits, at most {@code timeout}, until each timed disturbance (relay restart, consumer restart)
   * has struck at least once: a short run would otherwise settle before the first one and prove
   * nothing about restarts.
   */
  void awaitFirstStrikes(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline
        && ((!settings.relayRestartEvery().isZero() && relayRestarts.get() == 0)
            || (!settings.consumerRestartEvery().isZero() && consumerRestarts.get() == 0))) {
      Thread.sleep(50);
    }
  }

  /** Stops restarts, crashes and repeated orders; the supervisor keeps reviving until {@link #close()}. */
  void calm() {
    calm = true;
  }

  public Counts counts() {
    return new Counts(sentTwice.get(), crashes.get(), resends.get(), relayRestarts.get(), consumerRestarts.get(),
        replays.get());
  }

  @Override
  public void close() {
    calm = true;
    for (ScheduledExecutorService timer : timers) {
      timer.shutdown(); // not shutdownNow(): an interrupted graceful close would leave threads behind
    }
    for (ScheduledExecutorService timer : timers) {
      try {
        timer.awaitTermination(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void every(Duration interval, String name, Runnable action) {
    if (interval.isZero()) {
      return;
    }
    // One thread per kind: a restart that waits for a graceful close must not delay the supervisor.
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "chaos-" + name);
      t.setDaemon(true);
      return t;
    });
    timers.add(timer);
    long ms = interval.toMillis();
    timer.scheduleWithFixedDelay(() -> {
      if (calm && !name.equals("supervisor")) {
        return;
      }
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn("chaos {} failed: {}", name, e.toString());
      }
    }, ms, ms, TimeUnit.MILLISECONDS);
  }
}
