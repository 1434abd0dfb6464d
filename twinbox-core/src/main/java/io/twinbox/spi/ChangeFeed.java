package io.twinbox.spi;

import java.time.Duration;
import java.util.List;

/**
 * A stream of the outbox's committed inserts (PostgreSQL: a logical replication slot read with
 * {@code pgoutput}), opened by {@link ChangeFeedStore#openChangeFeed}. The server keeps everything
 * after the last {@linkplain #confirm confirmed} position; a feed opened again starts there.
 *
 * <p>Reading is bounded: the feed buffers a limited number of changes and stops reading from the
 * server when the relay does not take them (back-pressure), while still answering the server's
 * keep-alives. Methods other than {@link #close()} are called from one thread (the relay's stream
 * thread); {@code close()} may be called from any thread.
 */
public interface ChangeFeed extends AutoCloseable {

  /**
   * Returns up to {@code max} changes in commit order, waiting at most {@code wait} for the first.
   * An empty list means nothing arrived.
   *
   * @throws io.twinbox.StoreException when the stream broke (connection lost, slot taken over)
   */
  List<Change> poll(int max, Duration wait) throws InterruptedException;

  /**
   * Throws when the stream broke (as {@link #poll} would once the buffered changes are taken): a
   * relay that does not poll — paused by a broker outage — learns at once that its connection or
   * slot is gone.
   *
   * @throws io.twinbox.StoreException when the stream broke
   */
  void checkOpen();

  /**
   * A position that may be confirmed once every change returned so far was handled, or {@code
   * null} while a transaction is partly delivered. It moves past WAL that holds no outbox insert
   * (other tables, other databases), so an idle relay still lets the server recycle WAL.
   */
  IdlePosition idlePosition();

  /**
   * Tells the server that every transaction ending at or before {@code lsn} is done: it may recycle
   * that WAL and will not send those transactions again. Positions never move back; a lower one
   * is ignored. Sent asynchronously, within about a second, and only while the {@code mayConfirm}
   * check given at open still passes.
   */
  void confirm(long lsn);

  /**
   * WAL the server keeps for this feed beyond its confirmed position, in bytes, read from the server
   * (a short query); -1 when it cannot be read.
   */
  long lagBytes();

  /** Stops streaming and closes the connection. Idempotent. */
  @Override
  void close();

  /**
   * @param lsn the position
   * @param changesBefore how many changes {@link #poll} had returned when the position was taken;
   *     the position is safe only if all of them were handled
   */
  record IdlePosition(long lsn, long changesBefore) {}
}
