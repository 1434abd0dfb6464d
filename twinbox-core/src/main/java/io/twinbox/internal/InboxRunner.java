package io.twinbox.internal;

import io.twinbox.spi.Printable;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.InboxOutcome;
import io.twinbox.RetryPolicy;
import io.twinbox.TwinboxException;
import io.twinbox.UnprocessableMessageException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing engine of {@link io.twinbox.InboxConsumer}: takes one partition's (or queue's)
 * messages in order and brings each to a committed end — processed, duplicate or parked — in
 * transactions of up to {@code batchSize} messages. The consumer has its source acknowledge the
 * broker only for what {@link #processRedeliverable} reports as committed.
 *
 * <ul>
 *   <li>A handler failure rolls the batch back; the messages before it are committed on their
 *       own, then the failing one is retried alone with backoff. Each failure is counted in the
 *       store in its own transaction; at {@code maxAttempts} the message is parked, and its handler
 *       never runs again.
 *   <li>An {@link UnprocessableMessageException}, a message the adapter could not decode, and one
 *       whose id the inbox cannot record are parked at once; so is a known id with a different
 *       payload (a conflict), in a transaction of its own after the messages before it committed.
 *   <li>Database trouble (SQLSTATE classes 08, 40, 53, 57: lost connection, serialization failure,
 *       deadlock, shutdown) is retried with backoff and costs no attempt. A failure that is the
 *       message's doing (classes 22, 23, 42 and 25P02) costs one, also when it appears only at
 *       COMMIT (a deferred constraint, an error the handler swallowed); see {@link Blame}.
 *   <li>Parking is total (the store clips what does not fit); a park the database still refuses is
 *       retried with backoff — only the park, never the handler — and reported to the listener.
 *   <li>A redelivered message the inbox does not hold yet (right after a restart or rebalance)
 *       is a suspect: it may be the one that killed the process, so an attempt is counted
 *       <em>before</em> its handler runs, and a message that kills the process is parked after
 *       {@code maxAttempts} runs instead of crashing the consumer forever. Suspects with no
 *       counted attempt yet run in ordinary batches, each batch's suspects counted first in one
 *       short transaction; a suspect with an attempt counted already (it was in a transaction
 *       that never ended) runs alone. A killer thus dies once in its batch, then alone, and its
 *       batch's other messages run alone once and are done: one extra short transaction per
 *       batch after a restart instead of two per message, which a consumer that crashes often
 *       needs to make progress at all (with {@code maxAttempts} below 3, or a store that cannot
 *       read counters, every suspect runs alone, as a killer's neighbours would otherwise be
 *       parked).
 * </ul>
 *
 * <p>Every retry pauses: database trouble and failed parks for 200 ms doubling up to 5 s, handler
 * failures as the {@link RetryPolicy} says. Not thread-safe: one instance per consuming thread.
 */
public final class InboxRunner {
  private static final Logger log = LoggerFactory.getLogger(InboxRunner.class);

  /** A received message, or the reason it could not be decoded. */
  public record Item(InboxMessage message, String decodeFailure) {}

  private final InboxEngine inbox;
  private final DataSource dataSource;
  private final InboxHandler handler;
  private final int batchSize;
  private final RetryPolicy retry;
  private final BooleanSupplier running;
  private final InboxParker parker;
  private final Ticker ticker;
  private final Set<String> parkedIds = new HashSet<>();

  public final AtomicLong processed = new AtomicLong();
  public final AtomicLong duplicates = new AtomicLong();
  public final AtomicLong parked = new AtomicLong();
  public final AtomicLong retries = new AtomicLong();
  public final AtomicLong transactions = new AtomicLong();
  /** Parks the database refused; each is retried. */
  public final AtomicLong parkFailures = new AtomicLong();

  public InboxRunner(Inbox inbox, DataSource dataSource, InboxHandler handler, int batchSize, RetryPolicy retry,
      BooleanSupplier running) {
    this(inbox, dataSource, handler, batchSize, retry, running, Ticker.SYSTEM);
  }

  /** @param ticker what retry delays and back-off pauses wait on; virtual in core's simulation */
  public InboxRunner(Inbox inbox, DataSource dataSource, InboxHandler handler, int batchSize, RetryPolicy retry,
      BooleanSupplier running, Ticker ticker) {
    this.ticker = ticker;
    this.inbox = InboxEngine.of(inbox);
    this.dataSource = dataSource;
    this.handler = handler;
    this.batchSize = batchSize;
    this.retry = retry;
    this.running = running;
    this.parker = new InboxParker(this.inbox, dataSource);
  }

  /** How often {@link #parkOverdueHeldIfDue} looks at the holds. */
  private static final long OVERDUE_CHECK_NANOS = 1_000_000_000L;
  private boolean overdueChecked;
  private long nextOverdueCheck;

  /**
   * DELTA ordering: parks the messages held past {@code gapTimeout}, at most once a second, in a
   * transaction of its own. A batch parks them too, but only a batch with a guarded message in it:
   * on a quiet stream a message held behind a gap would stay held, neither applied nor parked, with
   * no one told. The consumer calls this on every turn of its loop. Database trouble is logged and
   * tried again at the next check.
   *
   * @return how many messages it parked
   */
  public int parkOverdueHeldIfDue() {
    long now = ticker.nanoTime();
    if (overdueChecked && now - nextOverdueCheck < 0) {
      return 0;
    }
    overdueChecked = true;
    nextOverdueCheck = now + OVERDUE_CHECK_NANOS;
    if (inbox.config().ordering() != InboxOrdering.DELTA || !overdueAllowed()) {
      return 0;
    }
    List<DefaultInbox.Parked> parkedNow;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        parkedNow = inbox.parkOverdueHeld(c);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("consumer {}: could not look for messages held past gapTimeout; looking again in 1 s: {}",
          inbox.consumer(), Reasons.of(e));
      return 0;
    }
    for (DefaultInbox.Parked p : parkedNow) {
      parked.incrementAndGet();
      inbox.reportParked(p.message(), p.reason());
    }
    return parkedNow.size();
  }

  private boolean inGrace;
  private long graceUntil;

  /**
   * The source started delivering again (a connection, a subscription, a partition assignment):
   * for one {@code gapTimeout} from now no hold is parked as overdue. A hold that aged while the
   * broker was down or this consumer was away did not wait for a gap — the message it waits for may
   * sit in the queue, or in another consumer's unacknowledged prefetch, and comes once delivery
   * resumes (FAULTS C2 on RabbitMQ: a 5-minute outage parked 95 healthy messages, and every later
   * message of their aggregates stayed held behind them).
   */
  public void sessionStarted() {
    inGrace = true;
    graceUntil = ticker.nanoTime() + inbox.config().gapTimeout().toNanos();
  }

  private boolean overdueAllowed() {
    if (inGrace && ticker.nanoTime() - graceUntil < 0) {
      return false;
    }
    inGrace = false;
    return true;
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
    List<Item> admitted = admit(items);
    boolean[] fresh = new boolean[admitted.size()];
    boolean[] suspect = suspects(admitted, redelivered, fresh);
    int start = 0;
    while (start < admitted.size()) {
      int end = start + 1;
      while (end < admitted.size() && !suspect[end]) {
        end++;
      }
      parkedIds.clear();
      int done = new Run(admitted.subList(start, end), suspect[start],
          java.util.Arrays.copyOfRange(fresh, start, end)).toEnd();
      if (done > 0) {
        committed.items(start, start + done);
      }
      if (done < end - start) {
        return start + done;
      }
      start = end;
    }
    return admitted.size();
  }

  /**
   * Which items start a run of their own in suspect mode, and which are suspects that may share a
   * batch. A redelivered message is suspect — it may be the one that stopped the process, so an
   * attempt is counted before its handler runs — unless this consumer's inbox already holds its
   * id: then it was processed and only its ack was lost, no handler will run for it, and it joins
   * an ordinary batch as a duplicate. Without this, a batch redelivered after its ack deadline (a
   * slow consumer) is handled one message and two transactions at a time, which makes the next
   * batch late too: a redelivery storm. A suspect with no attempt counted yet is {@code fresh}: it
   * runs in a batch, counted first with the batch's other fresh suspects. One short read for the
   * whole batch; if it fails, every redelivered message runs alone.
   *
   * @param redelivered per item, whether the broker says it delivered the message before
   * @param fresh filled in: per item, a suspect that may share a batch
   * @return per item, whether it starts a suspect run of its own
   */
  private boolean[] suspects(List<Item> items, boolean[] redelivered, boolean[] fresh) {
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
    Map<String, Integer> counted;
    try (Connection c = dataSource.getConnection()) {
      known = inbox.store().storedHashes(c, inbox.consumer(), ids).keySet();
      // Below 3 attempts a killer's neighbours, counted once in its batch and once alone, would be parked.
      counted = retry.maxAttempts() < 3 ? null
          : inbox.store().storedAttempts(c, inbox.consumer(), ids.stream().distinct().toList());
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("consumer {}: cannot look up redelivered messages; treating them as suspect: {}",
          inbox.consumer(), Reasons.of(e));
      return suspect;
    }
    for (int i : asked) {
      String id = items.get(i).message().id();
      boolean unknown = !known.contains(id);
      fresh[i] = unknown && counted != null && !counted.containsKey(id);
      suspect[i] = unknown && !fresh[i];
    }
    return suspect;
  }

  /**
   * Brings the items, in order, to a committed end.
   *
   * @return how many leading items are done (all of them unless stopped)
   */
  public int process(List<Item> items, boolean suspect) throws InterruptedException {
    parkedIds.clear(); // kept for one call only: adapters ask right after it (or in its callback)
    return new Run(admit(items), suspect, null).toEnd();
  }

  /** Tells the inbox's listener that {@code message} committed, with its latencies. */
  public void reportCommitted(InboxMessage message, java.time.Duration sinceReceived,
      java.time.Duration sinceEvent) {
    inbox.reportCommitted(message, sinceReceived, sinceEvent);
  }

  /**
   * True (once) when the message with {@code id} was parked by the latest {@link #process} (for
   * {@link #processRedeliverable}: the run the callback is told of), for adapters that settle a
   * parked message differently on the broker (NATS terminates it).
   */
  public boolean takeParked(String id) {
    return parkedIds.remove(id);
  }

  /**
   * Items whose message id the inbox could not record (a NUL, an unpaired surrogate: PostgreSQL
   * refuses them, so every {@code record} would fail) become undecodable items with a stand-in id
   * derived from the exact id, to be parked.
   */
  private static List<Item> admit(List<Item> items) {
    List<Item> admitted = null;
    for (int i = 0; i < items.size(); i++) {
      InboxMessage m = items.get(i).message();
      if (InboxIds.storable(m.id())) {
        continue;
      }
      if (admitted == null) {
        admitted = new ArrayList<>(items);
      }
      String standIn = InboxIds.standIn(m.id());
      String reason = "message id is not storable (it holds NUL or an unpaired surrogate); recorded as " + standIn;
      String failure = items.get(i).decodeFailure();
      admitted.set(i, new Item(InboxParker.withId(m, standIn), failure == null ? reason : failure + "; " + reason));
    }
    return admitted == null ? items : admitted;
  }

  /**
   * One call of {@link #process}: the items, how far they are done, and what is known about the
   * head message. Each {@link #step} either makes progress or pauses.
   */
  private final class Run {
    private final List<Item> items;
    /** Per item, a suspect to count before the transaction it runs in; null: none. */
    private final boolean[] fresh;
    /** Fresh suspects counted for a transaction that has not ended yet: id → counter. */
    private final Map<String, Integer> batchCounted = new HashMap<>();
    /** Fresh suspects that ran and failed without stopping the process: counted on failure from now on. */
    private final Set<String> ranHere = new HashSet<>();
    private boolean suspect;
    private int done;
    private int cap = batchSize;
    /** After an unattributed failure: one message per transaction up to here, to find it. */
    private int singlesUntil;
    /** Pauses in a row without progress, for the backoff. */
    private int pauses;

    // The head, items[done]:
    /** Failures counted in the store. */
    private int attempts;
    /** An attempt row exists, to clear with the outcome. */
    private boolean counted;
    /** Suspect mode counted the attempt of the coming run already. */
    private boolean precounted;
    /** Decided: park it, with this reason. Only the park is retried from here on. */
    private String parkReason;
    private int parkAttempts;

    // A message behind the head whose failure was counted while the ones before it commit:
    private String aheadId;
    private int aheadAttempts;
    private boolean aheadCounted;
    private String aheadPark;

    Run(List<Item> items, boolean suspect, boolean[] fresh) {
      this.items = items;
      this.suspect = suspect;
      this.fresh = fresh;
    }

    int toEnd() throws InterruptedException {
      while (done < items.size() && running.getAsBoolean()) {
        step();
      }
      return done;
    }

    private void step() throws InterruptedException {
      Item head = items.get(done);
      if (parkReason == null && head.decodeFailure() != null) {
        decidePark(head.decodeFailure(), 0);
      }
      if (parkReason == null && head.message().id().equals(aheadId)) {
        takeOverAhead();
      }
      if (parkReason == null && suspect && !precounted && !countBeforeRun(head.message())) {
        return;
      }
      if (parkReason == null && !suspect && !countBatchBeforeRun()) {
        return;
      }
      if (parkReason != null) {
        parkHead(head.message());
      } else {
        runBatch();
      }
    }

    /** Suspect mode: counts the coming run first, so a message that kills the process gets parked. */
    private boolean countBeforeRun(InboxMessage m) throws InterruptedException {
      int n;
      try {
        n = inbox.store().recordAttempt(inbox.consumer(), m.id(), "started after a restart");
      } catch (TwinboxException e) {
        pause("cannot count an attempt", e);
        return false;
      }
      adoptCount(n);
      return true;
    }

    /** The head's attempt of the coming run is counted ({@code n}): it runs alone, or is parked. */
    private void adoptCount(int n) {
      attempts = n;
      counted = true;
      precounted = true;
      suspect = true;
      // n - 1 earlier runs were counted; the first may not have been (a message met in steady state
      // is counted only once it comes back suspect), so it may have run n times already: park at
      // n == maxAttempts, and a message that kills the process runs at most maxAttempts times
      // (maxAttempts - 1 when its first run was already suspect). FAULTS D6.
      if (n >= retry.maxAttempts()) {
        decidePark("the consumer stopped while processing this message " + (n - 1) + " times since it came back"
            + " suspect, and maybe once before (maxAttempts " + retry.maxAttempts() + ")", n);
      }
    }

    /**
     * Counts the fresh suspects of the coming transaction in one short transaction, before any of
     * them runs. A counter above 1 (another consumer counted it meanwhile, or a lost reply made
     * this one count twice) makes that message run alone when its turn comes.
     */
    private boolean countBatchBeforeRun() throws InterruptedException {
      if (fresh == null) {
        return true;
      }
      int end = Math.min(items.size(), done + cap);
      java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();
      for (int i = done; i < end && items.get(i).decodeFailure() == null; i++) { // the transaction ends there
        String id = items.get(i).message().id();
        if (fresh[i] && !batchCounted.containsKey(id) && !ranHere.contains(id)) {
          ids.add(id);
        }
      }
      if (!ids.isEmpty()) {
        try {
          batchCounted.putAll(inbox.store().recordAttempts(inbox.consumer(), List.copyOf(ids),
              "in a batch redelivered after a restart"));
        } catch (TwinboxException e) {
          pause("cannot count attempts", e);
          return false;
        }
      }
      Integer n = batchCounted.get(items.get(done).message().id());
      if (n != null && n > 1 && items.get(done).decodeFailure() == null) {
        batchCounted.remove(items.get(done).message().id());
        adoptCount(n);
      }
      return true;
    }

    private void runBatch() throws InterruptedException {
      int end = suspect ? done + 1 : Math.min(items.size(), done + cap);
      int stop = done;
      while (stop < end && items.get(stop).decodeFailure() == null
          && (stop == done || batchCounted.getOrDefault(items.get(stop).message().id(), 1) <= 1)) {
        stop++; // a batch-counted suspect whose counter says it ran before waits to run alone
      }
      List<InboxMessage> batch = items.subList(done, stop).stream().map(Item::message).toList();
      java.util.LinkedHashSet<String> ending = new java.util.LinkedHashSet<>();
      if (counted) {
        ending.add(batch.get(0).id());
      }
      for (int i = 0; i < batch.size() && !batchCounted.isEmpty(); i++) { // empty outside a restart
        if (batchCounted.containsKey(batch.get(i).id())) {
          ending.add(batch.get(i).id());
        }
      }
      List<String> clear = List.copyOf(ending);
      Outcome outcome = commit(batch, clear);
      if (outcome instanceof Done) {
        clear.forEach(batchCounted::remove);
        advance(batch.size());
      } else if (outcome instanceof ConflictFound k) {
        if (k.conflict().index() == 0) {
          decidePark(k.conflict().reason(), 0); // parked next step, in a transaction of its own
        } else {
          cap = k.conflict().index(); // commit the messages before it first
        }
      } else {
        Failed f = (Failed) outcome;
        onFailure(batch, f.index(), f.cause(), f.inHandler());
      }
    }

    /**
     * The one place that decides what a failure means: database trouble is retried without an
     * attempt; a failure nobody in the batch can be blamed for is narrowed down one message at a
     * time; otherwise the message to blame uses an attempt, and is parked when it is unprocessable
     * or its attempts are spent.
     */
    private void onFailure(List<InboxMessage> batch, int index, Throwable cause, boolean inHandler)
        throws InterruptedException {
      Blame blame = Blame.of(cause, inbox.store()::isTransient);
      if (blame == Blame.INFRASTRUCTURE || (blame == Blame.UNKNOWN && !inHandler)) {
        // A serialization failure or deadlock, also in the handler's own SQL, is the database's
        // doing, not the message's: retry without using an attempt (FAULTS D8).
        pause(inHandler ? "database trouble in a handler" : "database trouble", cause);
        return;
      }
      if (unattributed(batch, index, cause, inHandler)) {
        narrowDown(batch.size(), cause);
        return;
      }
      int at = inHandler ? index : 0;
      InboxMessage m = batch.get(at);
      boolean unprocessable = inHandler && cause instanceof UnprocessableMessageException;
      String what = inHandler ? "handler failed" : "transaction failed";
      if (at > 0) {
        countAhead(m, cause, unprocessable, what);
        cap = at; // commit the messages before it on their own first
      } else if (unprocessable) {
        decidePark("unprocessable: " + Reasons.of(cause), precounted ? attempts : attempts + 1);
      } else {
        blameHead(m, cause, what);
      }
    }

    /**
     * A failure at COMMIT (or in the inbox's own statements) cannot say which message caused it,
     * nor can an aborted transaction (25P02) which earlier statement.
     */
    private boolean unattributed(List<InboxMessage> batch, int index, Throwable cause, boolean inHandler) {
      return index < 0 || (!inHandler && batch.size() > 1)
          || (inHandler && index > 0 && Blame.abortedTransaction(cause));
    }

    /** Runs the failed transaction's messages one at a time, to find the one to blame; no attempt used. */
    private void narrowDown(int size, Throwable cause) {
      log.warn("consumer {}: a transaction of {} messages failed and none is to blame; running them one at a time:"
          + " {}", inbox.consumer(), size, Reasons.of(cause));
      singlesUntil = done + size;
      cap = 1;
    }

    /** The head failed: one attempt used (counted before, in suspect mode); parked when they are spent. */
    private void blameHead(InboxMessage m, Throwable cause, String what) throws InterruptedException {
      int n = attempts;
      Integer batchCount = precounted ? null : batchCounted.remove(m.id());
      if (batchCount != null) {
        n = batchCount; // this run was counted with its batch
        ranHere.add(m.id());
      } else if (!precounted) {
        try {
          n = inbox.store().recordAttempt(inbox.consumer(), m.id(), describe(cause));
        } catch (TwinboxException e) {
          pause("cannot count an attempt", e);
          return;
        }
      }
      attempts = n;
      counted = true;
      precounted = false;
      suspect = false;
      cap = 1;
      if (retry.exhausted(n)) {
        decidePark(what + " " + n + " times; last: " + describe(cause), n);
        return;
      }
      retries.incrementAndGet();
      log.warn("consumer {}: message {} failed (attempt {}/{}), retrying: {}", inbox.consumer(), Printable.of(m.id()), n,
          retry.maxAttempts(), describe(cause));
      ticker.sleep(retry.delayAfter(n).toMillis());
    }

    /**
     * A failure behind the head counts too (or a poison message would run its handler
     * {@code maxAttempts + 1} times); it is acted on when that message becomes the head.
     */
    private void countAhead(InboxMessage m, Throwable cause, boolean unprocessable, String what)
        throws InterruptedException {
      if (unprocessable) {
        aheadId = m.id();
        aheadAttempts = 1;
        aheadCounted = false;
        aheadPark = "unprocessable: " + Reasons.of(cause);
        return;
      }
      Integer batchCount = batchCounted.remove(m.id());
      if (batchCount != null) {
        aheadAttempts = batchCount; // this run was counted with its batch
        ranHere.add(m.id());
      } else {
        try {
          aheadAttempts = inbox.store().recordAttempt(inbox.consumer(), m.id(), describe(cause));
        } catch (TwinboxException e) {
          pause("cannot count an attempt", e); // it runs again as the head and is counted then
          return;
        }
      }
      aheadId = m.id();
      aheadCounted = true;
      aheadPark = retry.exhausted(aheadAttempts)
          ? what + " " + aheadAttempts + " times; last: " + describe(cause) : null;
    }

    private void takeOverAhead() {
      attempts = aheadAttempts;
      counted = aheadCounted;
      if (aheadPark != null) {
        decidePark(aheadPark, aheadAttempts);
      }
      aheadId = null;
      aheadPark = null;
    }

    private void decidePark(String reason, int attemptsSpent) {
      parkReason = reason;
      parkAttempts = attemptsSpent;
    }

    private void parkHead(InboxMessage m) throws InterruptedException {
      if (park(m, parkReason, parkAttempts)) {
        batchCounted.remove(m.id()); // the park cleared its counter
        advance(1);
      } else {
        pause("cannot park message " + m.id(), null);
      }
    }

    private void advance(int n) {
      done += n;
      cap = done < singlesUntil ? 1 : batchSize;
      suspect = false;
      attempts = 0;
      counted = false;
      precounted = false;
      parkReason = null;
      pauses = 0;
    }

    /** Database trouble or a refused park: 200 ms doubling up to 5 s, reset by progress. */
    private void pause(String what, Throwable cause) throws InterruptedException {
      pauses++;
      long ms = Math.min(5_000L, 100L << Math.min(6, pauses));
      if (cause != null) {
        log.warn("consumer {}: {}, retrying in {} ms without using an attempt: {}", inbox.consumer(), what, ms,
            Reasons.of(cause));
      }
      ticker.sleep(ms);
    }
  }

  /** What one transaction of the runner came to. */
  private sealed interface Outcome permits Done, ConflictFound, Failed {}

  private record Done() implements Outcome {}

  private record ConflictFound(DefaultInbox.Conflict conflict) implements Outcome {}

  /** {@code index}: the message whose handler threw ({@code -1}: none to blame); 0 outside handlers. */
  private record Failed(int index, Throwable cause, boolean inHandler) implements Outcome {}

  /** @param clearAttempts the messages whose attempt counters end with this transaction */
  private Outcome commit(List<InboxMessage> batch, List<String> clearAttempts) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        // The listener hears of the outcomes only after the commit: a batch that fails later and
        // is retried must not count its leading messages twice.
        DefaultInbox.Batch quiet = inbox.processQuietly(c, batch, handler, true, overdueAllowed());
        if (quiet.conflict() != null) {
          c.rollback(); // the inbox records of this batch; nothing ran
          return new ConflictFound(quiet.conflict());
        }
        if (!clearAttempts.isEmpty()) {
          inbox.store().clearAttempts(c, inbox.consumer(), clearAttempts);
        }
        inbox.store().requireCommittable(c); // else a swallowed error turns the commit into a silent rollback
        c.commit();
        transactions.incrementAndGet();
        inbox.report(quiet);
        for (InboxOutcome o : quiet.outcomes()) {
          switch (o) {
            case PROCESSED -> processed.incrementAndGet();
            case DUPLICATE -> duplicates.incrementAndGet();
            case CONFLICT, PARKED -> parked.incrementAndGet();
          }
        }
        return new Done();
      } catch (InboxHandlerException e) {
        rollback(c, e);
        return new Failed(e.index(), e.getCause(), true);
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        return new Failed(0, e, false);
      }
    } catch (SQLException e) {
      return new Failed(0, e, false);
    }
  }

  /** Parks in a transaction of its own; false when the database refused (retry later). */
  private boolean park(InboxMessage m, String reason, int attempts) {
    InboxParker.Result result = parker.park(m, reason, attempts);
    switch (result) {
      case PARKED -> {
        parked.incrementAndGet();
        parkedIds.add(m.id());
      }
      case DUPLICATE -> duplicates.incrementAndGet();
      case REFUSED -> parkFailures.incrementAndGet();
    }
    return result != InboxParker.Result.REFUSED;
  }

  /** A failure for a reason: the exception, and the first SQLSTATE of its chain, which operators look up. */
  private static String describe(Throwable cause) {
    String state = Blame.firstSqlState(cause);
    return Reasons.of(cause) + (state == null ? "" : " (SQLSTATE " + state + ")");
  }

  static void rollback(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException re) {
      cause.addSuppressed(re);
    }
  }
}
