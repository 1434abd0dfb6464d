package io.twinbox.example;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The demo's live progress line, printed every second: the phase (burst or steady), orders placed
 * over all phases, {@code OrderCreated} events published, payments applied, duplicates suppressed
 * by the inboxes, orders settled (and, under chaos, what was done to the run). Counts of rows come from the databases themselves; the others
 * from the relays' and consumers' counters.
 *
 * <p>Thread-safe.
 */
final class Progress {
  private volatile String phase = "";
  private volatile OrderWriters writers;
  private volatile long placedBefore;
  private final RunningServices services;
  private final Environment env;
  private final int total;
  private final Chaos chaos;
  private final PrintWriter out;
  private final long startNanos = System.nanoTime();

  Progress(RunningServices services, Environment env, int total, Chaos chaos, PrintWriter out) {
    this.services = services;
    this.env = env;
    this.total = total;
    this.chaos = chaos;
    this.out = out;
  }

  /** When the run started, in {@link System#nanoTime()} terms. */
  long startNanos() {
    return startNanos;
  }

  /** From now on the line shows this phase; {@code placedBefore} orders were placed by the earlier ones. */
  synchronized void phase(String name, OrderWriters phaseWriters, long placedBeforeIt) {
    placedBefore = placedBeforeIt;
    writers = phaseWriters;
    phase = name;
  }

  /** Prints one line. */
  synchronized void print() {
    long applied;
    long settled;
    try {
      applied = Verification.longs(env.payments(), "SELECT count(*) FROM payments")[0];
      settled = settled(env.orders());
    } catch (SQLException e) {
      out.println("(progress unavailable: " + e.getMessage() + ")");
      out.flush();
      return;
    }
    OrderWriters current = writers;
    long placed = placedBefore + (current == null ? 0 : current.placed());
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
        "[%5.1fs] %-6s | placed %s/%s | OrderCreated published %s"
        + " | payments applied %s | duplicates suppressed %s | settled %s",
        (System.nanoTime() - startNanos) / 1e9, phase, Check.count(placed), Check.count(total),
        Check.count(services.orderEventsPublished()), Check.count(applied),
        Check.count(services.duplicatesSuppressed()), Check.count(settled)));
    if (chaos.settings().any()) {
      Chaos.Counts c = chaos.counts();
      line.append(String.format(Locale.ROOT, " | chaos: %s sent twice, %d crashes, %d restarts",
          Check.count(c.sentTwice()), c.crashes(), c.relayRestarts() + c.consumerRestarts()));
    }
    out.println(line);
    out.flush();
  }

  /** Orders no longer PENDING. */
  static long settled(DataSource orders) throws SQLException {
    return Verification.longs(orders, "SELECT count(*) FROM orders WHERE status <> 'PENDING'")[0];
  }
}
