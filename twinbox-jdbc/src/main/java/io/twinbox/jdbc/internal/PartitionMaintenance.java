package io.twinbox.jdbc.internal;

import io.twinbox.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitioned outbox's upkeep for one store: partitions created ahead (from the relay's
 * heartbeat when due, or on demand) and old all-PUBLISHED partitions dropped, each step in its own
 * short transaction of the store. Thread-safe.
 */
public final class PartitionMaintenance {
  /** The longest pause between two creations from the heartbeat. */
  public static final Duration EVERY = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(PartitionMaintenance.class);
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** Runs work in one of the store's transactions (the store's own {@code inTransaction}). */
  public interface Transactor {
    <T> T inTransaction(String what, Transactions.SqlWork<T> work);
  }

  private final PartitionSql sql;
  private final Transactor tx;
  private final AtomicLong nextRun = new AtomicLong(System.nanoTime());
  private volatile Duration every = EVERY;

  public PartitionMaintenance(PartitionSql sql, Transactor tx) {
    this.sql = sql;
    this.tx = tx;
  }

  /** What a check of the outbox's layout found, and when ({@link System#nanoTime()}). */
  private record Seen(boolean partitioned, long at) {}

  private volatile Seen seen;

  public boolean partitioned() {
    return saw(tx.inTransaction("check the outbox's partitioning", sql::partitioned));
  }

  /**
   * {@link #partitioned()} as last seen by any check of this maintenance (the relays' heartbeat
   * makes one every minute), looking again only when that is older than {@link #EVERY}. For
   * choices that are right on either layout and only faster on the one they fit (the claim).
   */
  public boolean partitionedLately() {
    Seen last = seen;
    return last != null && System.nanoTime() - last.at() < EVERY.toNanos() ? last.partitioned() : partitioned();
  }

  private boolean saw(boolean partitioned) {
    seen = new Seen(partitioned, System.nanoTime());
    return partitioned;
  }

  /** Creates the partitions ahead; 0 when the outbox is not partitioned or was too busy. */
  public int createAhead() {
    try {
      return tx.inTransaction("create outbox partitions", c -> {
        if (!saw(sql.partitioned(c))) {
          return 0;
        }
        int made = sql.createAhead(c);
        long[] layout = sql.layout(c);
        every = every(Duration.ofSeconds(layout[0]), (int) layout[1]);
        return made;
      });
    } catch (StoreException e) {
      if (LOCK_NOT_AVAILABLE.equals(Transactions.sqlState(e))) {
        log.info("the outbox was busy for {} ms; its partitions are created at the next maintenance",
            PartitionSql.LOCK_WAIT.toMillis());
        return 0;
      }
      throw e;
    }
  }

  /** {@link #createAhead()} when due; never throws (the DEFAULT partition takes writes meanwhile). */
  public void createAheadIfDue() {
    long now = System.nanoTime();
    long due = nextRun.get();
    if (now - due < 0 || !nextRun.compareAndSet(due, now + every.toNanos())) {
      return;
    }
    try {
      createAhead();
    } catch (RuntimeException e) {
      log.warn("could not create outbox partitions ahead (the DEFAULT partition takes writes meanwhile): {}",
          e.getMessage());
    }
  }

  /**
   * At most {@link #EVERY}, and at most half the time the partitions ahead cover, so that a missed
   * run or two still leave a partition for every write.
   */
  static Duration every(Duration interval, int ahead) {
    Duration half = interval.multipliedBy(ahead).dividedBy(2);
    return half.compareTo(EVERY) < 0 ? half : EVERY;
  }

  /**
   * After each drop, the pause is this many times as long as the drop's transaction held the
   * outbox's lock: the outbox is then locked at most a tenth of the time while many partitions go.
   * Measured before the pause (BENCHMARKS.md, issue 18): 92 partitions dropped back to back held the
   * relay's claims (p50 35.8 ms against 8.6 ms) and cut the drain to 0.63 of its rate.
   */
  static final int YIELD_FACTOR = 9;

  /** The longest pause between two drops. */
  static final Duration MAX_PAUSE = Duration.ofSeconds(1);

  /**
   * Drops the old partitions that hold PUBLISHED rows only; returns the rows they held. Between two
   * drops it pauses ({@link #YIELD_FACTOR} times the previous drop's transaction, at most {@link
   * #MAX_PAUSE}) so that writers and relays run; an interrupt ends the call after the current drop.
   */
  public long dropPublished(Duration age) {
    List<String> old = tx.inTransaction("list old outbox partitions", c -> {
      if (!sql.partitioned(c)) {
        throw new IllegalStateException("twinbox_outbox is not partitioned (see JdbcStore.Builder.partitionedOutbox)");
      }
      return sql.older(c, age);
    });
    long removed = 0;
    long pauseNanos = 0;
    for (String partition : old) {
      if (pauseNanos > 0 && !pause(pauseNanos)) {
        return removed;
      }
      long rows = tx.inTransaction("count an outbox partition's rows", c -> sql.rows(c, partition));
      long start = System.nanoTime();
      PartitionSql.Drop result;
      try {
        result = tx.inTransaction("drop an outbox partition", c -> sql.dropIfPublished(c, partition, age));
      } catch (StoreException e) {
        if (LOCK_NOT_AVAILABLE.equals(Transactions.sqlState(e))) {
          log.info("the outbox was busy for {} ms; partition {} is dropped at a later run",
              PartitionSql.LOCK_WAIT.toMillis(), partition);
          pauseNanos = MAX_PAUSE.toNanos();
          continue;
        }
        throw e;
      }
      long held = System.nanoTime() - start;
      pauseNanos = Math.min(MAX_PAUSE.toNanos(), held * YIELD_FACTOR);
      if (result == PartitionSql.Drop.DROPPED) {
        removed += rows;
        log.info("dropped outbox partition {} ({} published rows) in a transaction of {} ms, lock wait included",
            partition, rows, held / 1_000_000);
      } else if (result == PartitionSql.Drop.HOLDS_UNPUBLISHED) {
        log.info("kept outbox partition {}: it holds PENDING or FAILED rows", partition);
      }
    }
    return removed;
  }

  /** Sleeps; false (and the interrupt flag set again) when interrupted. */
  private static boolean pause(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
