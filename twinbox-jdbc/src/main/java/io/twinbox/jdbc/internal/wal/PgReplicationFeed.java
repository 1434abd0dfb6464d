package io.twinbox.jdbc.internal.wal;

import io.twinbox.StoreException;
import io.twinbox.spi.StoreRules;
import io.twinbox.spi.Change;
import io.twinbox.spi.ChangeFeed;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ChangeFeed} over a pgjdbc {@link PGReplicationStream}. pgjdbc's stream is not
 * thread-safe and sends status updates only from inside its read calls, so one reader thread owns
 * it: it reads, decodes, and hands changes to a bounded buffer; it sends the positions the relay
 * {@linkplain #confirm confirms}. When the buffer is full it stops reading — the server's send
 * buffer fills and the walsender waits, which is the back-pressure — but keeps sending a status
 * update every second, so the server ({@code wal_sender_timeout}, 60 s by default) never drops an
 * idle or paused relay's connection.
 *
 * <p>Automatic flushing of keep-alive positions by pgjdbc is off: the only positions ever flushed
 * are those the relay confirmed, each checked against {@code mayConfirm} (the stream lease) right
 * before it is handed to the driver.
 *
 * <p>Thread-safe as {@link ChangeFeed} requires.
 */
final class PgReplicationFeed implements ChangeFeed {
  private static final Logger log = LoggerFactory.getLogger(PgReplicationFeed.class);
  private static final long STATUS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** A new confirmed position goes to the server at most this often (a status update each). */
  private static final long CONFIRM_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long MAX_IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long MIN_IDLE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  /** Rough upper bound of buffered payload; the count bound alone would let 900 KiB rows pile up. */
  private static final long MAX_BUFFERED_BYTES = 64L << 20;
  /** How long a graceful close waits for the server to hold the last confirmed position. */
  static final long FINAL_CONFIRM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(3);

  private final String slot;
  private final Connection connection;
  private final PGReplicationStream stream;
  private final PgoutputDecoder decoder;
  private final BooleanSupplier mayConfirm;
  private final LongSupplier lagQuery;
  private final LongSupplier serverConfirmed;
  private final int maxBuffered;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final ArrayDeque<Change> buffer = new ArrayDeque<>();
  private long bufferedBytes;
  private long enqueued;
  private volatile IdlePosition idle;
  private volatile long confirmTarget = -1;
  private volatile boolean closing;
  private volatile Throwable failure;
  private final Thread reader;

  PgReplicationFeed(String slot, Connection connection, PGReplicationStream stream, PgoutputDecoder decoder,
      BooleanSupplier mayConfirm, LongSupplier lagQuery, LongSupplier serverConfirmed, int maxBuffered) {
    this.slot = slot;
    this.connection = connection;
    this.stream = stream;
    this.decoder = decoder;
    this.mayConfirm = mayConfirm;
    this.lagQuery = lagQuery;
    this.serverConfirmed = serverConfirmed;
    this.maxBuffered = maxBuffered;
    this.reader = new Thread(this::readLoop, "twinbox-wal-reader-" + slot);
    reader.setDaemon(true);
    reader.start();
  }

  @Override
  public List<Change> poll(int maxRows, Duration wait) throws InterruptedException {
    List<Change> out = new ArrayList<>();
    long deadline = System.nanoTime() + wait.toNanos();
    lock.lock();
    try {
      while (buffer.isEmpty()) {
        throwIfFailed();
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return out;
        }
        arrived.awaitNanos(left);
      }
      int rows = 0;
      while (!buffer.isEmpty() && rows < maxRows) {
        Change c = buffer.poll();
        bufferedBytes -= size(c);
        out.add(c);
        if (c instanceof Change.Insert || c instanceof Change.Unreadable) {
          rows++;
        }
      }
      arrived.signalAll(); // room for the reader
      return out;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void checkOpen() {
    throwIfFailed();
  }

  private void throwIfFailed() {
    Throwable f = failure;
    if (f != null) {
      throw new StoreException("the replication stream of slot " + slot + " broke: " + StoreRules.reason(f), f);
    }
  }

  @Override
  public IdlePosition idlePosition() {
    return idle;
  }

  @Override
  public void confirm(long lsn) {
    if (lsn > confirmTarget) {
      confirmTarget = lsn;
    }
  }

  @Override
  public long lagBytes() {
    return lagQuery.getAsLong();
  }

  private void readLoop() {
    long sent = -1;
    long told = -1;
    long lastStatus = System.nanoTime();
    long park = MIN_IDLE_PARK_NANOS;
    List<Change> pending = new ArrayList<>();
    try {
      while (!closing) {
        sent = flushConfirm(sent);
        if (sent > told && System.nanoTime() - lastStatus > CONFIRM_EVERY_NANOS) {
          // Tell the server soon: what is confirmed is not replayed after a crash of this relay.
          stream.forceUpdateStatus();
          told = sent;
          lastStatus = System.nanoTime();
        }
        if (!pending.isEmpty()) {
          if (!offer(pending)) {
            // Back-pressure: the relay is not taking changes (broker down, slow acks). Do not read;
            // keep the connection alive.
            if (System.nanoTime() - lastStatus > STATUS_EVERY_NANOS) {
              stream.forceUpdateStatus();
              lastStatus = System.nanoTime();
            }
            awaitRoom();
            continue;
          }
          pending.clear();
        }
        ByteBuffer message = stream.readPending(); // also sends the periodic status update when due
        if (message != null) {
          decoder.decode(message, pending);
          idle = null;
          park = MIN_IDLE_PARK_NANOS;
          continue;
        }
        if (decoder.betweenTransactions()) {
          long lsn = Math.max(decoder.lastCommitEnd(), stream.getLastReceiveLSN().asLong());
          idle = lsn > 0 ? new IdlePosition(lsn, enqueuedCount()) : null;
        }
        LockSupport.parkNanos(park);
        park = Math.min(MAX_IDLE_PARK_NANOS, park * 2);
      }
      long last = flushConfirm(sent);
      stream.forceUpdateStatus();
      if (last >= 0) { // also a status sent earlier: the server may not have read it yet
        awaitServerConfirmed(last);
      }
    } catch (SQLException | RuntimeException e) {
      if (!closing) {
        failure = e;
        log.warn("replication stream of slot {} failed: {}", slot, StoreRules.reason(e));
      }
    } finally {
      lock.lock();
      try {
        arrived.signalAll();
      } finally {
        lock.unlock();
      }
      closeQuietly();
    }
  }

  /**
   * The last confirmation must be applied by the server before the connection closes, or the next
   * streamer replays what this one published since the last status the server processed. Sending
   * it is not enough: the walsender may still be writing WAL this relay no longer reads, and a
   * close with unread data resets the connection, so the server can fail its write and exit before
   * it reads the status. So keep reading (and dropping: nothing past {@code lsn} is confirmed) and
   * re-sending the status until the slot shows the position, bounded by {@link
   * #FINAL_CONFIRM_WAIT_NANOS}.
   */
  private void awaitServerConfirmed(long lsn) throws SQLException {
    long deadline = System.nanoTime() + FINAL_CONFIRM_WAIT_NANOS;
    long nextStatus = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    long held = serverConfirmed.getAsLong();
    while (held < lsn && System.nanoTime() < deadline) {
      while (System.nanoTime() < nextStatus && stream.readPending() != null) {
        // dropped: nothing past lsn is confirmed, and reading lets the walsender reach our status
      }
      if (System.nanoTime() >= nextStatus) {
        stream.forceUpdateStatus();
        nextStatus = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      held = serverConfirmed.getAsLong();
    }
    if (held < lsn) {
      log.warn("slot {}: the server holds confirmed position {} and not yet the last one sent, {}; the next streamer"
          + " may publish some events again", slot, LogSequenceNumber.valueOf(held), LogSequenceNumber.valueOf(lsn));
    }
  }

  /** Hands the relay's newest confirmed position to the driver, if the lease still allows it. */
  private long flushConfirm(long sent) {
    long target = confirmTarget;
    if (target <= sent || !mayConfirm.getAsBoolean()) {
      return sent;
    }
    LogSequenceNumber lsn = LogSequenceNumber.valueOf(target);
    stream.setFlushedLSN(lsn);
    stream.setAppliedLSN(lsn);
    return target;
  }

  /** Moves decoded changes into the buffer, all or none; false when it is full. */
  private boolean offer(List<Change> changes) {
    lock.lock();
    try {
      if (!buffer.isEmpty() && (buffer.size() + changes.size() > maxBuffered || bufferedBytes > MAX_BUFFERED_BYTES)) {
        return false;
      }
      for (Change c : changes) {
        buffer.add(c);
        bufferedBytes += size(c);
      }
      enqueued += changes.size();
      arrived.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void awaitRoom() throws SQLException {
    lock.lock();
    try {
      arrived.await(50, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting for the relay", e);
    } finally {
      lock.unlock();
    }
  }

  private long enqueuedCount() {
    lock.lock();
    try {
      return enqueued;
    } finally {
      lock.unlock();
    }
  }

  private static long size(Change c) {
    if (c instanceof Change.Insert i) {
      return 256L + i.message().payload().length();
    }
    return 64;
  }

  /** Sends the last confirmation (if the lease allows), ends the stream, closes the connection. */
  @Override
  public void close() {
    closing = true;
    try {
      reader.join(TimeUnit.NANOSECONDS.toMillis(FINAL_CONFIRM_WAIT_NANOS) + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeQuietly();
  }

  /**
   * Closes the connection without ending the COPY first: pgjdbc's orderly end reads until the server
   * stops sending, which can take as long as the server has WAL to send. The server sees the
   * connection close after the last status update and ends its walsender.
   */
  private void closeQuietly() {
    try {
      connection.close();
    } catch (SQLException e) {
      log.debug("closing the replication connection of slot {} failed: {}", slot, StoreRules.reason(e));
    }
  }
}
