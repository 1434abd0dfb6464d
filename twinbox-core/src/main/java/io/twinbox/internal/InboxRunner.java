package io.twinbox.internal;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOutcome;
import io.twinbox.RetryPolicy;
import io.twinbox.TwinboxException;
import io.twinbox.UnprocessableMessageException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-independent half of a consumer adapter: takes one partition's (or queue's) messages
 * in order and brings each to a committed end — processed, duplicate or parked — in transactions
 * of up to {@code batchSize} messages. The adapter acknowledges the broker only for what
 * {@link #process} reports as done, i.e. after the commit.
 *
 * <ul>
 *   <li>A handler failure rolls the batch back; the messages before it are committed on their
 *       own, then the failing one is retried alone with backoff. Each failure is counted in the
 *       store in its own transaction; at {@code maxAttempts} the message is parked.
 *   <li>An {@link UnprocessableMessageException}, or a message the adapter could not decode, is
 *       parked at once.
 *   <li>Database trouble (lost connection, serialization failure, deadlock) is retried with
 *       backoff and costs no attempt.
 *   <li>In suspect mode (right after a restart or rebalance) the first message is counted
 *       <em>before</em> its handler runs, so a message that kills the process is parked after
 *       {@code maxAttempts} restarts instead of crashing the consumer forever.
 * </ul>
 *
 * <p>Not thread-safe: one instance per consuming thread.
 */
public final class InboxRunner {
  private static final Logger log = LoggerFactory.getLogger(InboxRunner.class);

  /** A received message, or the reason it could not be decoded. */
  public record Item(InboxMessage message, String decodeFailure) {}

  private final Inbox inbox;
  private final DataSource dataSource;
  private final InboxHandler handler;
  private final int batchSize;
  private final RetryPolicy retry;
  private final BooleanSupplier running;

  public final AtomicLong processed = new AtomicLong();
  public final AtomicLong duplicates = new AtomicLong();
  public final AtomicLong parked = new AtomicLong();
  public final AtomicLong retries = new AtomicLong();
  public final AtomicLong transactions = new AtomicLong();

  public InboxRunner(Inbox inbox, DataSource dataSource, InboxHandler handler, int batchSize, RetryPolicy retry,
      BooleanSupplier running) {
    this.inbox = inbox;
    this.dataSource = dataSource;
    this.handler = handler;
    this.batchSize = batchSize;
    this.retry = retry;
    this.running = running;
  }

  /** Told which items, {@code [from, to)}, a transaction just brought to a committed end. */
  @FunctionalInterface
  public interface Committed {
    void items(int from, int to);
  }

  /**
   * Processes a broker's batch in order, where some messages may be redeliveries: each redelivered
   * message the inbox does not hold yet starts a run of its own in suspect mode ({@link #suspects}),
   * everything else goes in ordinary batches. {@code committed} hears of each committed run, so that
   * the caller acknowledges only what is in the database.
   *
   * @param redelivered per item, whether the broker says it delivered the message before
   * @return how many leading items are done (all of them unless stopped)
   */
  public int processRedeliverable(List<Item> items, boolean[] redelivered, Committed committed)
      throws InterruptedException {
    boolean[] suspect = suspects(items, redelivered);
    int start = 0;
    while (start < items.size()) {
      int end = start + 1;
      while (end < items.size() && !suspect[end]) {
        end++;
      }
      int done = process(items.subList(start, end), suspect[start]);
      if (done > 0) {
        committed.items(start, start + done);
      }
      if (done < end - start) {
        return start + done;
      }
      start = end;
    }
    return items.size();
  }

  /**
   * Which items start a run of their own in suspect mode. A redelivered message is suspect — it
   * may be the one that stopped the process, so an attempt is counted before its handler runs —
   * unless this consumer's inbox already holds its id: then it was processed and only its ack was
   * lost, no handler will run for it, and it joins an ordinary batch as a duplicate. Without this,
   * a batch redelivered after its ack deadline (a slow consumer) is handled one message and two
   * transactions at a time, which makes the next batch late too: a redelivery storm. One short
   * read for the whole batch; if it fails, every redelivered message stays suspect.
   *
   * @param redelivered per item, whether the broker says it delivered the message before
   * @return per item, whether it starts a suspect run
   */
  private boolean[] suspects(List<Item> items, boolean[] redelivered) {
    boolean[] suspect = redelivered.clone();
    List<Integer> asked = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      if (suspect[i] && items.get(i).decodeFailure() == null) { // an undecodable one is parked anyway
        asked.add(i);
        ids.add(items.get(i).message().id());
      }
    }
    if (ids.isEmpty()) {
      return suspect;
    }
    Set<String> known;
    try (Connection c = dataSource.getConnection()) {
      known = inbox.store().storedHashes(c, inbox.consumer(), ids).keySet();
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("consumer {}: cannot look up redelivered messages; treating them as suspect: {}",
          inbox.consumer(), Reasons.of(e));
      return suspect;
    }
    for (int i : asked) {
      suspect[i] = !known.contains(items.get(i).message().id());
    }
    return suspect;
  }

  /**
   * Brings the items, in order, to a committed end.
   *
   * @return how many leading items are done (all of them unless stopped)
   */
  public int process(List<Item> items, boolean suspect) throws InterruptedException {
    int done = 0;
    int cap = batchSize;
    int singlesUntil = 0; // after a batch handler's unattributed failure: one message per transaction up to here
    int infraFailures = 0;
    int precounted = 0; // attempts already counted for the head (suspect mode)
    boolean headHasAttempts = false;
    String countedAhead = null; // a message behind the head whose failure was already counted
    int aheadAttempts = 0;
    while (done < items.size()) {
      if (!running.getAsBoolean()) {
        return done;
      }
      Item head = items.get(done);
      if (head.decodeFailure() != null) {
        if (!park(head.message(), head.decodeFailure(), 0)) {
          infraFailures = pause(++infraFailures);
          continue;
        }
        done++;
        suspect = false;
        continue;
      }
      if (suspect) {
        int attempts;
        try {
          attempts = inbox.store().recordAttempt(inbox.consumer(), head.message().id(), "started after a restart");
        } catch (TwinboxException e) {
          infraFailures = pause(++infraFailures);
          continue;
        }
        if (attempts > retry.maxAttempts()) {
          if (park(head.message(), "the consumer stopped while processing this message " + (attempts - 1)
              + " times (maxAttempts " + retry.maxAttempts() + ")", attempts - 1)) {
            done++;
            suspect = false;
          }
          continue;
        }
        precounted = attempts;
        headHasAttempts = true;
      }
      if (head.message().id().equals(countedAhead)) {
        countedAhead = null;
        headHasAttempts = true;
        if (retry.exhausted(aheadAttempts)) {
          if (park(head.message(), "handler failed " + aheadAttempts + " times", aheadAttempts)) {
            done++;
            headHasAttempts = false;
          }
          continue;
        }
      }
      int end = suspect ? done + 1 : Math.min(items.size(), done + cap);
      int stop = done;
      while (stop < end && items.get(stop).decodeFailure() == null) {
        stop++;
      }
      List<InboxMessage> batch = items.subList(done, stop).stream().map(Item::message).toList();
      try {
        commit(batch, headHasAttempts);
        done += batch.size();
        cap = done < singlesUntil ? 1 : batchSize;
        suspect = false;
        precounted = 0;
        headHasAttempts = false;
        infraFailures = 0;
      } catch (InboxHandlerException e) {
        if (transientDatabaseError(e.getCause())) {
          // A serialization failure or deadlock in the handler's own SQL is the database's doing,
          // not the message's: retry without using an attempt (FAULTS D8).
          log.warn("consumer {}: transient database conflict in a handler, retrying: {}", inbox.consumer(),
              Reasons.of(e.getCause()));
          infraFailures = pause(++infraFailures);
          continue;
        }
        if (e.index() < 0) {
          // A batch handler failed for several messages and none is to blame: run them one at a
          // time, which finds the failing one and counts its attempt. No attempt is counted here.
          log.warn("consumer {}: batch handler failed for {} messages; running them one at a time: {}",
              inbox.consumer(), batch.size(), Reasons.of(e.getCause()));
          singlesUntil = done + batch.size();
          cap = 1;
          continue;
        }
        if (e.index() > 0) {
          // Commit the messages before the failing one on their own first. The failure still
          // counts, or a poison message would run its handler maxAttempts + 1 times.
          try {
            aheadAttempts = inbox.store().recordAttempt(inbox.consumer(), batch.get(e.index()).id(),
                Reasons.of(e.getCause()));
            countedAhead = batch.get(e.index()).id();
          } catch (TwinboxException se) {
            infraFailures = pause(++infraFailures);
          }
          cap = e.index();
          continue;
        }
        InboxMessage m = batch.get(0);
        Throwable cause = e.getCause();
        if (cause instanceof UnprocessableMessageException) {
          if (park(m, "unprocessable: " + Reasons.of(cause), 1)) {
            done++;
            suspect = false;
            precounted = 0;
            headHasAttempts = false;
          }
          continue;
        }
        int attempts = precounted;
        if (attempts == 0) {
          try {
            attempts = inbox.store().recordAttempt(inbox.consumer(), m.id(), Reasons.of(cause));
          } catch (TwinboxException se) {
            infraFailures = pause(++infraFailures);
            continue;
          }
        }
        precounted = 0;
        suspect = false;
        headHasAttempts = true;
        if (retry.exhausted(attempts)) {
          if (park(m, "handler failed " + attempts + " times; last: " + Reasons.of(cause), attempts)) {
            done++;
            headHasAttempts = false;
          }
        } else {
          retries.incrementAndGet();
          log.warn("consumer {}: message {} failed (attempt {}/{}), retrying: {}", inbox.consumer(), m.id(), attempts,
              retry.maxAttempts(), Reasons.of(cause));
          Thread.sleep(retry.delayAfter(attempts).toMillis());
        }
        cap = 1;
      } catch (TwinboxException | SQLException e) {
        log.warn("consumer {}: database trouble, retrying without using an attempt: {}", inbox.consumer(),
            Reasons.of(e));
        infraFailures = pause(++infraFailures);
      }
    }
    return done;
  }

  private void commit(List<InboxMessage> batch, boolean clearAttempts) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        // The listener hears of the outcomes only after the commit: a batch that fails later and
        // is retried must not count its leading messages twice.
        DefaultInbox.Batch quiet = inbox instanceof DefaultInbox d ? d.processQuietly(c, batch, handler) : null;
        List<InboxOutcome> outcomes = quiet != null ? quiet.outcomes() : inbox.processAll(c, batch, handler);
        if (clearAttempts) {
          inbox.store().clearAttempts(c, inbox.consumer(), batch.get(0).id());
        }
        c.commit();
        transactions.incrementAndGet();
        if (quiet != null) {
          ((DefaultInbox) inbox).report(quiet);
        }
        for (InboxOutcome o : outcomes) {
          switch (o) {
            case PROCESSED -> processed.incrementAndGet();
            case DUPLICATE -> duplicates.incrementAndGet();
            case CONFLICT, PARKED -> parked.incrementAndGet();
          }
        }
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        throw e;
      }
    }
  }

  /** Parks in a transaction of its own; false when the database refused (retry later). */
  private boolean park(InboxMessage m, String reason, int attempts) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        String hash = PayloadHash.of(m);
        // Recorded first: a redelivery of a message already parked (or processed) is not parked
        // twice. park() itself records the id too, idempotently.
        boolean fresh = !inbox.store().record(c, inbox.consumer(), java.util.Map.of(m.id(), hash)).isEmpty();
        if (fresh) {
          inbox.store().park(c, inbox.consumer(), m, hash, reason, attempts);
        }
        inbox.store().clearAttempts(c, inbox.consumer(), m.id());
        c.commit();
        if (!fresh) {
          duplicates.incrementAndGet();
          return true;
        }
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        throw e;
      }
      parked.incrementAndGet();
      log.error("consumer {}: parked message {} ({}, from {}): {}", inbox.consumer(), m.id(), m.type(), m.origin(),
          reason);
      if (inbox instanceof DefaultInbox d) {
        d.reportParked(m, reason);
      }
      return true;
    } catch (SQLException | TwinboxException e) {
      log.warn("consumer {}: could not park message {}: {}", inbox.consumer(), m.id(), Reasons.of(e));
      return false;
    }
  }

  /** SQLSTATE class 40 (transaction rollback: serialization failure, deadlock) anywhere in the chain. */
  private static boolean transientDatabaseError(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SQLException se) {
        for (SQLException s = se; s != null; s = s.getNextException()) {
          if (s.getSQLState() != null && s.getSQLState().startsWith("40")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static void rollback(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException re) {
      cause.addSuppressed(re);
    }
  }

  private int pause(int failures) throws InterruptedException {
    long ms = Math.min(5_000L, 100L << Math.min(6, failures));
    Thread.sleep(ms);
    return failures;
  }
}
