package io.twinbox.internal;

import java.time.Instant;
import java.util.ArrayDeque;

/**
 * The WAL relay's received transactions in commit order, and the position up to which all of them
 * are done. A transaction is done when each of its rows is: acknowledged by the broker and deleted,
 * recorded as FAILED or retrying, or left in the table for the sweep (and visible there). Broker
 * answers may arrive in any order (FAULTS G3) and several rows share one commit (G2), so the
 * position only moves over a contiguous done prefix: it never passes a transaction with an open row,
 * and it always lands on a commit boundary.
 *
 * <p>Not thread-safe: the stream thread owns it.
 */
final class CommitWindow {

  /** One received transaction; {@code open} counts its rows not yet done. */
  static final class Tx {
    final long xid;
    long endLsn = -1;
    Instant commitTime;
    int open;

    Tx(long xid) {
      this.xid = xid;
    }

    boolean committed() {
      return endLsn >= 0;
    }
  }

  private final ArrayDeque<Tx> txs = new ArrayDeque<>();
  private Tx receiving;
  private long done = -1;

  /** A transaction starts arriving. */
  Tx begin(long xid) {
    receiving = new Tx(xid);
    txs.add(receiving);
    return receiving;
  }

  /** The transaction that is arriving (between its begin and its commit). */
  Tx receiving() {
    if (receiving == null) {
      throw new IllegalStateException("a row arrived outside a transaction");
    }
    return receiving;
  }

  /** True between a transaction's begin and its commit: it is partly received. */
  boolean receivingOpen() {
    return receiving != null;
  }

  /** The arriving transaction is complete. */
  void commit(long endLsn, Instant commitTime) {
    Tx tx = receiving();
    tx.endLsn = endLsn;
    tx.commitTime = commitTime;
    receiving = null;
  }

  /** A row of {@code tx} must be done before the position may pass it. */
  void open(Tx tx) {
    tx.open++;
  }

  /** A row of {@code tx} is done. */
  void close(Tx tx) {
    if (--tx.open < 0) {
      throw new IllegalStateException("transaction " + tx.xid + " closed more rows than it opened");
    }
  }

  /**
   * Drops the done prefix and returns the end position of its last transaction: every transaction up
   * to it is done. Returns the previous value when nothing new is done; -1 before the first.
   */
  long advance() {
    while (!txs.isEmpty() && txs.peek().committed() && txs.peek().open == 0) {
      done = txs.poll().endLsn;
    }
    return done;
  }

  /** True when no received transaction is pending (nothing open, none partly received). */
  boolean empty() {
    return txs.isEmpty();
  }

  /** Commit time of the oldest transaction not yet done, or null. */
  Instant oldestPendingCommit() {
    for (Tx tx : txs) {
      if (tx.commitTime != null) {
        return tx.commitTime;
      }
    }
    return null;
  }
}
