package io.twinbox.internal;

import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.ParkedMessage;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.ReplayStart;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out operators' replay requests of parked messages for one consumer, on the consumer's own
 * thread between two batches (so the handler is never called concurrently with itself): a cheap
 * query at most every {@code interval}, then each request in a transaction of its own that locks
 * the parked row, records the message id in the inbox, runs the handler and marks the row {@code
 * REPLAYED} — all or nothing. An id applied before (with another payload) ends {@code REPLAYED} without
 * a handler run; a handler failure rolls back and puts the row back to {@code PARKED} with the new
 * reason; database trouble leaves it {@code REPLAYING} for the next poll. The ordering guard is not
 * consulted: the operator asked for this message. Not thread-safe: the consumer's thread only.
 */
public final class ParkedReplayer {
  private static final Logger log = LoggerFactory.getLogger(ParkedReplayer.class);
  /** Requests carried out per poll; the rest wait for the next one. */
  static final int PER_POLL = 20;

  private final InboxEngine inbox;
  private final InboxStore store;
  private final DataSource dataSource;
  private final InboxHandler handler;
  private final long intervalNanos;
  private long nextPoll = System.nanoTime();
  private boolean warned;

  /** Replays whose handler ran and committed. */
  public final AtomicLong replayed = new AtomicLong();
  /** Replays that found the id applied before: no handler run. */
  public final AtomicLong noops = new AtomicLong();
  /** Replays whose handler failed: back to PARKED. */
  public final AtomicLong failed = new AtomicLong();

  public ParkedReplayer(io.twinbox.Inbox inbox, DataSource dataSource, InboxHandler handler, Duration interval) {
    this.inbox = InboxEngine.of(inbox);
    this.store = inbox.store();
    this.dataSource = dataSource;
    this.handler = handler;
    this.intervalNanos = interval.toNanos();
  }

  /** Carries out pending requests if the interval has passed since the last poll; returns how many ended. */
  public int pollIfDue() {
    long now = System.nanoTime();
    if (!store.supportsReplay() || now - nextPoll < 0) {
      return 0;
    }
    nextPoll = now + intervalNanos;
    List<ParkedMessage> requests;
    try {
      requests = store.replayRequests(inbox.consumer(), PER_POLL);
    } catch (RuntimeException e) {
      if (!warned) { // e.g. a schema without V7: once, not every second
        log.warn("consumer {}: cannot read replay requests of parked messages: {}", inbox.consumer(), Reasons.of(e));
        warned = true;
      }
      return 0;
    }
    int ended = 0;
    for (ParkedMessage p : requests) {
      ended += replay(p) ? 1 : 0;
    }
    return ended;
  }

  /** One request; true when it ended (replayed, no-op or failed), false when it stays for the next poll. */
  private boolean replay(ParkedMessage p) {
    String consumer = inbox.consumer();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        ReplayStart start = store.startReplay(c, consumer, p.id());
        if (start == ReplayStart.GONE) {
          c.rollback();
          return false;
        }
        boolean apply = start == ReplayStart.APPLY;
        if (apply) {
          InboxMessage m = p.toInboxMessage();
          if (handler instanceof InboxBatchHandler b) {
            b.handleAll(c, List.of(m));
          } else {
            handler.handle(c, m);
          }
          store.requireCommittable(c);
        }
        store.finishReplay(c, consumer, p.id(), apply);
        c.commit();
        (apply ? replayed : noops).incrementAndGet();
        log.info("consumer {}: replayed parked message {} (id {}){}", consumer, p.id(), p.messageId(),
            apply ? "" : ": applied before, handler not run");
        return true;
      } catch (Exception e) {
        InboxRunner.rollback(c, e);
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        if (Blame.of(e, store::isTransient) == Blame.INFRASTRUCTURE) {
          log.warn("consumer {}: replay of parked message {} hit database trouble, retried at the next poll: {}",
              consumer, p.id(), Reasons.of(e));
          return false;
        }
        return fail(p, e);
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("consumer {}: replay of parked message {} could not start: {}", consumer, p.id(), Reasons.of(e));
      return false;
    }
  }

  private boolean fail(ParkedMessage p, Exception cause) {
    String reason = "replay failed: " + Reasons.of(cause);
    try {
      if (store.replayFailed(inbox.consumer(), p.id(), reason)) {
        failed.incrementAndGet();
        log.error("consumer {}: replay of parked message {} (id {}) failed, parked again: {}", inbox.consumer(),
            p.id(), p.messageId(), reason);
      }
      return true;
    } catch (RuntimeException e) {
      log.warn("consumer {}: could not put parked message {} back after a failed replay: {}", inbox.consumer(),
          p.id(), Reasons.of(e));
      return false;
    }
  }
}
