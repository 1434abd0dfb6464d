package io.twinbox.internal;

import io.twinbox.ChangeFeedStatus;
import io.twinbox.spi.Change;
import io.twinbox.spi.ChangeFeed;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streaming session of the WAL relay, while it holds the stream lease: open the change feed at
 * the slot's confirmed position, then loop — take what arrived, publish it in waves, complete it in
 * one statement, confirm the done prefix, and now and then sweep the table. Ends when the lease is
 * no longer valid, the relay closes, or anything fails (the engine then opens a new session; what
 * this one did not finish is still in the table or the slot).
 *
 * <p>Per-aggregate order: the stream is in commit order, which is each aggregate's sequence order,
 * and a batch goes out in waves. An event whose aggregate has older rows left in the table (see
 * {@link HeldGroups}) is never published ahead of them: it is left in the table too, and the sweep —
 * the polling relay's own claim, on this same thread — publishes them all in order.
 *
 * <p>At-least-once by the log position: the slot is confirmed only past transactions all of whose
 * rows are done, and only after the completion that made them done committed. A crash at any point
 * replays at most the unconfirmed suffix, and of that the stream sends only what the table still
 * holds unpublished (see {@link #withoutDone}): a crash costs at most the batch in flight, published
 * and not yet completed (duplicates the inbox absorbs).
 *
 * <p>Not thread-safe: runs on the stream thread.
 */
final class WalStream implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WalStream.class);
  private static final long POLL_WAIT_MS = 50;
  /** Reads of the feed per batch at most, so that a stream skimming left rows still confirms and sweeps. */
  private static final int MAX_READS_PER_BATCH = 50;
  private static final long STATUS_EVERY_MS = 5_000;
  /** How long a graceful stop may take to finish what the stream began (see {@link #drain}). */
  static final Duration DRAIN_AT_MOST = Duration.ofSeconds(5);
  private static final long OUTAGE_BACKOFF_MIN_MS = 100;
  /**
   * A row of a group that is not held and still in the table this long after it was written is
   * behind the stream (or the stream lags that much): the sweep publishes it.
   */
  static final Duration STALE_AFTER = Duration.ofSeconds(10);

  /** A row taken from the feed and not done yet. */
  private record Item(OutboxMessage message, GroupKey group, CommitWindow.Tx tx) {}

  /** A failure to record in the table, and the transaction it belongs to. */
  private record Failure(FailedPublish failure, GroupKey group, CommitWindow.Tx tx) {}

  private final WalRelayEngine r;
  private final ChangeFeed feed;
  private final HeldGroups held;
  private final CommitWindow window = new CommitWindow();
  private final WavePublisher publisher;

  /** Items a broker outage (or a lapsing lease) left unpublished, in stream order. */
  private List<Item> retry = List.of();
  /** Left in the table: done once their transaction is visible to the store's queries. */
  private final List<Item> unsettledLefts = new ArrayList<>();
  /** Completed rows the completion did not find: their transaction was not visible yet. */
  private final List<Item> unappliedPublished = new ArrayList<>();
  private final List<Failure> unappliedFailures = new ArrayList<>();

  private long taken;
  private long confirmed = -1;
  private long lastConfirmNanos = System.nanoTime();
  private long outageBackoffMs;
  private long outageUntilNanos;
  private long nextSweepNanos;
  private long nextStatusNanos;
  private final long startNanos = System.nanoTime();
  private boolean publishedOnce;
  /**
   * Changes were taken from the feed and dropped unhandled (the start of a transaction a graceful
   * stop did not begin): the feed's idle position may lie past them and is never confirmed again.
   */
  private boolean droppedTail;
  /**
   * The log position when the session began. Until the stream is confirmed past it, the groups the
   * table held at start wait for the stream (see {@link #sweepIfDue}).
   */
  private final long startPosition;

  WalStream(WalRelayEngine r) {
    this.r = r;
    this.publisher = new WavePublisher(r.transport, r.config.retryPolicy(), r.config.publishTimeout(),
        r.config.source(), r.deadLetters != null);
    long t0 = System.nanoTime();
    this.feed = r.feeds.openChangeFeed(r.wal.slot(), r.lease::valid, r.wal.maxBufferedChanges());
    long opened = System.nanoTime();
    try {
      // Every group with rows in the table is left to the sweep until it published them: a row the
      // slot already passed (a failure, an operator's retry, a lost delete) must never be overtaken.
      this.held = new HeldGroups(r.feeds.groupsInTable());
      this.startPosition = r.feeds.currentPosition(); // every row seen just now committed before it
    } catch (RuntimeException e) {
      feed.close();
      throw e;
    }
    long now = System.nanoTime();
    nextSweepNanos = held.size() > 0 ? now : now + r.wal.sweepInterval().toNanos();
    nextStatusNanos = now;
    log.info("relay {} streams slot {} (opened in {} ms); {} groups with rows in the table go to the sweep first"
        + " (read in {} ms)", r.config.nodeId(), r.wal.slot(), (opened - t0) / 1_000_000, held.size(),
        (now - opened) / 1_000_000);
  }

  void run() throws InterruptedException {
    while (r.running() && r.lease.valid()) {
      feed.checkOpen(); // also while paused: a lost slot must not wait for the broker to come back
      if (!retry.isEmpty()) {
        long wait = outageUntilNanos - System.nanoTime();
        if (wait > 0) {
          // Back-pressure: while the broker is down nothing more is read; the feed stops reading the
          // slot once its buffer is full and keeps answering the server's keep-alives.
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(POLL_WAIT_MS)));
        } else {
          List<Item> again = retry;
          retry = List.of();
          publish(again, List.of());
        }
      } else {
        readAndPublish();
      }
      settle();
      confirm();
      if (retry.isEmpty()) {
        sweepIfDue();
      }
      reportIfDue();
    }
    if (!r.running() && r.lease.valid()) {
      drain();
    }
  }

  /**
   * A graceful stop finishes what the stream began, so that the last confirmation covers every row
   * it published: it reads on until the transaction it is in the middle of is complete (a batch
   * ends after a number of rows, not at a commit) and publishes its rows, retries what an outage
   * left unpublished, and waits for left and completed rows to become visible. It begins no new
   * transaction: that one stays in the slot, unpublished, for the next streamer. Without this, the
   * next streamer would replay the cut transaction whole and send its published rows again. Bounded
   * by {@link #DRAIN_AT_MOST}; what is still open then is replayed (a duplicate the inbox absorbs).
   */
  private void drain() throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN_AT_MOST.toNanos();
    while (unfinished() && r.lease.valid() && System.nanoTime() < deadline) {
      if (!retry.isEmpty()) {
        long wait = outageUntilNanos - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(POLL_WAIT_MS)));
        } else {
          List<Item> again = retry;
          retry = List.of();
          publish(again, List.of());
        }
      } else if (window.receivingOpen()) {
        readToCommit();
      } else {
        TimeUnit.MILLISECONDS.sleep(5); // left or completed rows whose transaction is not visible yet
      }
      settle();
      confirm();
    }
    if (unfinished()) {
      log.warn("relay {} stopped with transactions still open on slot {}; the next streamer replays them and may"
          + " publish some of their events again", r.config.nodeId(), r.wal.slot());
    }
  }

  /** True while something the stream took is not done: the position cannot cover it yet. */
  private boolean unfinished() {
    return window.receivingOpen() || !retry.isEmpty() || !unsettledLefts.isEmpty()
        || !unappliedPublished.isEmpty() || !unappliedFailures.isEmpty();
  }

  /**
   * Reads the rest of the transaction partly received and publishes it; of what arrives after its
   * commit nothing is handled (the next streamer receives it again).
   */
  private void readToCommit() throws InterruptedException {
    List<Change> changes = feed.poll(r.config.batchSize(), Duration.ofMillis(POLL_WAIT_MS));
    int end = 0;
    while (end < changes.size() && !(changes.get(end) instanceof Change.Commit)) {
      end++;
    }
    List<Change> thisTx = end < changes.size() ? changes.subList(0, end + 1) : changes;
    if (thisTx.size() < changes.size()) {
      droppedTail = true;
    }
    taken += changes.size();
    List<Item> toPublish = new ArrayList<>();
    List<Failure> unreadable = new ArrayList<>();
    accept(thisTx, toPublish, unreadable);
    publish(toPublish, unreadable);
  }

  /**
   * Takes what arrived until a batch to publish is full: rows the stream leaves or skips do not
   * count, so after a take-over (or behind a long sweep) the stream skims the WAL it must pass
   * quickly instead of one batch per round.
   */
  private void readAndPublish() throws InterruptedException {
    List<Item> toPublish = new ArrayList<>();
    List<Failure> unreadable = new ArrayList<>();
    Duration wait = Duration.ofMillis(POLL_WAIT_MS);
    for (int round = 0; round < MAX_READS_PER_BATCH && toPublish.size() < r.config.batchSize(); round++) {
      List<Change> changes = feed.poll(r.config.batchSize() - toPublish.size(), wait);
      if (changes.isEmpty()) {
        break;
      }
      taken += changes.size();
      accept(changes, toPublish, unreadable);
      wait = Duration.ZERO;
    }
    publish(toPublish, unreadable);
  }

  /** Sorts what arrived: to publish, to leave in the table, to record as FAILED. */
  private void accept(List<Change> changes, List<Item> toPublish, List<Failure> unreadable) {
    for (Change c : changes) {
      if (c instanceof Change.Begin b) {
        window.begin(b.xid());
      } else if (c instanceof Change.Commit k) {
        window.commit(k.endLsn(), k.commitTime());
      } else if (c instanceof Change.Insert in) {
        OutboxMessage m = in.message();
        Item item = new Item(m, GroupKey.of(m), window.receiving());
        if (in.ready() && held.alreadySwept(m)) {
          continue; // the sweep published it already
        }
        if (held.isHeld(item.group())) {
          boolean first = held.releasedByFirstEvent(item.group(), m.sequence());
          if (in.ready() && (first || held.resumable(item.group(), m.sequence()))) {
            held.release(List.of(item.group())); // nothing of it is behind, or the sweep caught up
          }
        }
        window.open(item.tx());
        if (!in.ready() || held.isHeld(item.group())) {
          leave(item);
        } else {
          toPublish.add(item);
        }
      } else if (c instanceof Change.Unreadable u) {
        CommitWindow.Tx tx = window.receiving();
        window.open(tx);
        held.hold(u.group(), 0);
        log.error("outbox row at position {} cannot be decoded; it goes to FAILED: {}", u.position(), u.reason());
        unreadable.add(new Failure(new FailedPublish(u.position(), true, Duration.ZERO, Reasons.clip(u.reason())),
            u.group(), tx));
      }
    }
  }

  /** The row stays in the table for the sweep; its group is held (already open in the window). */
  private void leave(Item item) {
    held.hold(item.group(), item.message().sequence());
    held.unsettled(item.group(), +1);
    unsettledLefts.add(item);
  }

  private void publish(List<Item> items, List<Failure> extra) throws InterruptedException {
    if (confirmed < startPosition && !items.isEmpty()) {
      items = withoutDone(items);
    }
    if (items.isEmpty() && extra.isEmpty()) {
      return;
    }
    r.batches.incrementAndGet();
    WavePublisher.Result res = items.isEmpty()
        ? WavePublisher.Result.NOTHING
        : publisher.publish(items.stream().map(Item::message).toList(), p -> r.lease.usableUntil());
    Set<Long> ackedPositions = new HashSet<>();
    res.published().forEach(m -> ackedPositions.add(m.position()));
    Map<Long, FailedPublish> failedByPosition = new HashMap<>();
    res.failed().forEach(f -> failedByPosition.put(f.position(), f));
    Set<GroupKey> failedGroups = new HashSet<>();
    res.failures().forEach(f -> failedGroups.add(GroupKey.of(f.message())));

    List<Item> acked = new ArrayList<>();
    List<Failure> failures = new ArrayList<>(extra);
    List<Item> unresolved = new ArrayList<>();
    for (Item item : items) {
      long position = item.message().position();
      if (ackedPositions.contains(position)) {
        acked.add(item);
      } else if (failedByPosition.containsKey(position)) {
        held.hold(item.group(), item.message().sequence());
        failures.add(new Failure(failedByPosition.get(position), item.group(), item.tx()));
      } else if (failedGroups.contains(item.group())) {
        leave(item); // behind a failure of its own aggregate in this batch
      } else {
        unresolved.add(item); // the broker is down, or the lease lapsed
      }
    }
    if (!complete(acked, failures)) {
      retry = List.of();
      return; // fenced: the session ends, the next streamer publishes these rows again
    }
    r.streamed.addAndGet(res.published().size());
    account(res);
    if (res.outage() != null) {
      outageBackoffMs = Math.min(r.config.outageBackoffMax().toMillis(),
          Math.max(OUTAGE_BACKOFF_MIN_MS, outageBackoffMs * 2));
      outageUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(outageBackoffMs);
    } else if (unresolved.isEmpty()) {
      outageBackoffMs = 0;
    }
    retry = unresolved;
  }

  /**
   * Until the stream has passed the position of its start it may be receiving what the previous
   * streamer published and completed but had not confirmed — after a kill, a lost connection, a
   * take-over, or a last confirmation the server never applied. Those rows are gone from the table
   * (or PUBLISHED): they are done, and are not sent again. A row the table lacks whose transaction
   * is not visible yet (a commit waiting for a synchronous standby) is published as before: only
   * proof of completion skips an event. One indexed read per batch, and only in that stretch.
   */
  private List<Item> withoutDone(List<Item> items) {
    Set<Long> there = r.feeds.unpublished(items.stream().map(i -> i.message().position()).toList());
    List<Item> missing = items.stream().filter(i -> !there.contains(i.message().position())).toList();
    if (missing.isEmpty()) {
      return items;
    }
    Set<Long> running = r.feeds.inProgress(xids(missing, List.of()));
    List<Item> out = new ArrayList<>(items.size());
    int done = 0;
    for (Item i : items) {
      if (there.contains(i.message().position()) || running.contains(i.tx().xid)) {
        out.add(i);
      } else {
        window.close(i.tx());
        done++;
      }
    }
    if (done > 0) {
      r.replayedDone.addAndGet(done);
      log.debug("relay {}: {} events received again are published already; not sent again", r.config.nodeId(), done);
    }
    return out;
  }

  /**
   * Deletes (or marks) acknowledged rows and records failures in one fenced statement. False when
   * the lease was lost (the store refused the rows).
   */
  private boolean complete(List<Item> acked, List<Failure> failures) {
    if (acked.isEmpty() && failures.isEmpty()) {
      return true;
    }
    Completion c = r.store.complete(r.config.nodeId(), r.lease.leases(), messages(acked),
        failures.stream().map(Failure::failure).toList(), r.config.completionMode());
    int expected = acked.size() + failures.size();
    if (c.completed() + c.failed() == expected) {
      acked.forEach(i -> window.close(i.tx()));
      failures.forEach(f -> window.close(f.tx()));
      return true;
    }
    if (!r.lease.valid()) {
      // The store refuses rows of a lease whose epoch moved on; the local deadline lapses first.
      fenced(expected - c.completed() - c.failed());
      return false; // the session ends: the rows stay in the table for the next streamer
    }
    // Some rows were not found: deleted already (a replay after a crash), or not yet visible to
    // queries although decoded (a commit waiting for a synchronous standby). Only the second kind
    // must be done again, once its transaction is visible.
    Set<Long> running = r.feeds.inProgress(xids(acked, failures));
    for (Item i : acked) {
      if (running.contains(i.tx().xid)) {
        unappliedPublished.add(i);
      } else {
        window.close(i.tx());
      }
    }
    for (Failure f : failures) {
      if (running.contains(f.tx().xid)) {
        held.unsettled(f.group(), +1);
        unappliedFailures.add(f);
      } else {
        window.close(f.tx());
      }
    }
    return true;
  }

  /** Finishes left rows and completions whose transactions have become visible. */
  private void settle() {
    if (unsettledLefts.isEmpty() && unappliedPublished.isEmpty() && unappliedFailures.isEmpty()) {
      return;
    }
    Set<Long> xids = new HashSet<>();
    unsettledLefts.forEach(i -> xids.add(i.tx().xid));
    unappliedPublished.forEach(i -> xids.add(i.tx().xid));
    unappliedFailures.forEach(f -> xids.add(f.tx().xid));
    Set<Long> running = r.feeds.inProgress(xids);
    unsettledLefts.removeIf(i -> {
      if (running.contains(i.tx().xid)) {
        return false;
      }
      held.unsettled(i.group(), -1);
      window.close(i.tx());
      return true;
    });
    List<Item> acked = new ArrayList<>();
    unappliedPublished.removeIf(i -> !running.contains(i.tx().xid) && acked.add(i));
    List<Failure> failures = new ArrayList<>();
    unappliedFailures.removeIf(f -> !running.contains(f.tx().xid) && failures.add(f));
    if (!acked.isEmpty() || !failures.isEmpty()) {
      Completion c = r.store.complete(r.config.nodeId(), r.lease.leases(), messages(acked),
          failures.stream().map(Failure::failure).toList(), r.config.completionMode());
      if (!r.lease.valid()) {
        fenced(acked.size() + failures.size() - c.completed() - c.failed());
        return;
      }
      acked.forEach(i -> window.close(i.tx()));
      failures.forEach(f -> {
        held.unsettled(f.group(), -1);
        window.close(f.tx());
      });
    }
  }

  /** Confirms the done prefix, or the feed's idle position when nothing is pending. */
  private void confirm() {
    long done = window.advance();
    if (!droppedTail && window.empty() && retry.isEmpty() && unsettledLefts.isEmpty()
        && unappliedPublished.isEmpty() && unappliedFailures.isEmpty()) {
      ChangeFeed.IdlePosition idle = feed.idlePosition();
      if (idle != null && idle.changesBefore() == taken) {
        done = Math.max(done, idle.lsn());
      }
    }
    if (done <= confirmed) {
      return;
    }
    if (!r.lease.valid()) {
      r.withheldConfirms.incrementAndGet();
      return;
    }
    feed.confirm(done);
    confirmed = done;
    lastConfirmNanos = System.nanoTime();
    r.confirms.incrementAndGet();
    held.streamReached(done);
  }

  /**
   * The sweep: the polling relay's claim over the table. It publishes, in aggregate order, what the
   * stream left there (held groups), and rows of other groups only once they are stale — older than
   * {@link #STALE_AFTER} and so behind the stream, e.g. a completion lost in a database crash; fresh
   * rows of groups that are not held belong to the stream, which would otherwise be overtaken by a
   * polling relay in disguise. Then releases held groups it has caught up with.
   */
  private void sweepIfDue() throws InterruptedException {
    long now = System.nanoTime();
    if (now < nextSweepNanos || !r.lease.valid()) {
      return;
    }
    // Until the stream has passed the position of its start, a group held only because the table had
    // rows of it then is left to the stream: its rows are, in the common case, a backlog in the slot,
    // and the stream's first event of it releases it. Were the sweep to publish them meanwhile (the
    // polling claim, on this thread), it would race the stream through the backlog and win,
    // keeping the groups held. A row of such a group that lies behind the stream (a completion lost
    // before the take-over) is found once the stream delivers a later event of its group — the
    // group is left then and swept — or once the stream has passed its start.
    boolean backlog = confirmed < startPosition;
    // Taken before the claim: a group whose left row was not visible yet must not be released.
    List<GroupKey> candidates = held.settledHeld();
    if (backlog) {
      candidates.removeIf(held::awaitingStream); // not swept, so not caught up either
    }
    List<ClaimedRow> rows = r.store.claim(r.config.nodeId(), r.lease.leases(), r.config.batchSize());
    boolean claimedAll = rows.size() < r.config.batchSize();
    // A row the store cannot decode goes to FAILED at once and holds its group, as in the polling relay.
    ClaimedBatch claimed = ClaimedBatch.of(rows);
    List<OutboxMessage> sweep = sweepable(claimed.messages(), backlog);
    Set<GroupKey> failedNow = new HashSet<>();
    for (UndecodableRow u : claimed.undecodable()) {
      if (u.aggregateId() != null) { // an unordered row holds back nothing
        GroupKey g = new GroupKey(u.aggregateType(), u.aggregateId(), true);
        held.hold(g, u.sequence());
        failedNow.add(g);
      }
    }
    if (!sweep.isEmpty() || !claimed.undecodable().isEmpty()) {
      long position = r.feeds.currentPosition();
      r.batches.incrementAndGet();
      WavePublisher.Result res = sweep.isEmpty()
          ? WavePublisher.Result.NOTHING
          : publisher.publish(sweep, p -> r.lease.usableUntil());
      Completion c = r.store.complete(r.config.nodeId(), r.lease.leases(), res.published(),
          claimed.failures(res.failed()), r.config.completionMode());
      if (!r.lease.valid()) {
        fenced(c.fenced());
        return; // rows skipped for the lapsing lease are not done: release nothing
      }
      accountUndecodable(claimed);
      res.published().forEach(m -> held.sweptOne(m, position));
      r.swept.addAndGet(res.published().size());
      for (OutboxMessage m : res.failures().stream().map(WavePublisher.Failure::message).toList()) {
        held.hold(GroupKey.of(m), m.sequence());
        failedNow.add(GroupKey.of(m));
      }
      account(res);
      if (res.outage() != null) {
        outageBackoffMs = Math.min(r.config.outageBackoffMax().toMillis(),
            Math.max(OUTAGE_BACKOFF_MIN_MS, outageBackoffMs * 2));
        nextSweepNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(outageBackoffMs);
        return;
      }
    }
    List<GroupKey> caught = new ArrayList<>(held.caughtUp(candidates, claimedAll));
    caught.removeAll(failedNow);
    if (!caught.isEmpty()) {
      Set<GroupKey> stillHeld = r.feeds.heldGroups(caught);
      List<GroupKey> released = new ArrayList<>(caught);
      released.removeAll(stillHeld);
      held.release(released);
    }
    // A full claim that found work sweeps again at once (draining held groups after a start);
    // otherwise the next sweep is an interval away.
    nextSweepNanos = !claimedAll && !sweep.isEmpty()
        ? System.nanoTime()
        : System.nanoTime() + r.wal.sweepInterval().toNanos();
  }

  /**
   * Of a claim, what the sweep publishes, per group a prefix in sequence order (so a group's rows
   * never go out of order, whatever the clocks): of a held group the rows up to its {@linkplain
   * HeldGroups#sweepLimit sweep limit}, of any group rows that are stale.
   */
  private List<OutboxMessage> sweepable(List<OutboxMessage> claimed, boolean backlog) {
    Instant staleBefore = Instant.now().minus(STALE_AFTER);
    Map<GroupKey, List<OutboxMessage>> groups = new HashMap<>();
    for (OutboxMessage m : claimed) {
      groups.computeIfAbsent(GroupKey.of(m), k -> new ArrayList<>()).add(m);
    }
    List<OutboxMessage> out = new ArrayList<>();
    groups.forEach((g, rows) -> {
      if (backlog && held.awaitingStream(g)) {
        return; // the stream's to deliver (see sweepIfDue)
      }
      rows.sort(Comparator.comparingLong(OutboxMessage::sequence));
      boolean isHeld = held.isHeld(g);
      long limit = held.sweepLimit(g);
      for (OutboxMessage m : rows) {
        boolean behindStream = isHeld && (!g.ordered() || m.sequence() <= limit);
        // Before the stream has passed its start, an old row of a group that is not held is a row
        // of the backlog ahead of it (its group was released by its first event), not one behind it.
        boolean stale = !backlog && m.createdAt() != null && m.createdAt().isBefore(staleBefore);
        if (!behindStream && !stale) {
          break; // this row and the group's later ones belong to the stream
        }
        out.add(m);
      }
    });
    return out;
  }

  private void reportIfDue() {
    long now = System.nanoTime();
    if (now < nextStatusNanos) {
      return;
    }
    nextStatusNanos = now + TimeUnit.MILLISECONDS.toNanos(STATUS_EVERY_MS);
    Instant oldest = window.oldestPendingCommit();
    Duration lag = oldest == null ? Duration.ZERO : Duration.between(oldest, Instant.now());
    ChangeFeedStatus status = new ChangeFeedStatus(r.wal.slot(), confirmed, feed.lagBytes(),
        lag.isNegative() ? Duration.ZERO : lag, Duration.ofNanos(now - lastConfirmNanos));
    Listeners.relay(() -> r.listener.changeFeed(status));
    if (log.isDebugEnabled()) {
      log.debug("slot {}: {}; held groups {}, sweep records {}", r.wal.slot(), status, held.size(),
          held.sweptRecords());
    }
  }

  private void accountUndecodable(ClaimedBatch claimed) {
    for (UndecodableRow u : claimed.undecodable()) {
      r.dead.incrementAndGet();
      // Only what the store made safe to print: the row's fields may be what is wrong with it.
      log.error("outbox row at position {} (partition {}, id {}) cannot be decoded and went to FAILED: {}",
          u.position(), u.partition(), u.id(), u.reason());
      Listeners.relay(() -> r.listener.undecodable(u));
    }
  }

  private void account(WavePublisher.Result res) {
    if (!res.published().isEmpty() && !publishedOnce) {
      publishedOnce = true;
      log.info("relay {} published its first {} events {} ms after it began streaming", r.config.nodeId(),
          res.published().size(), (System.nanoTime() - startNanos) / 1_000_000);
    }
    if (!res.published().isEmpty()) {
      r.published.addAndGet(res.published().size());
      Listeners.relay(() -> r.listener.published(res.published()));
    }
    for (WavePublisher.Failure f : res.failures()) {
      boolean isDead = f.record().dead();
      (isDead ? r.dead : r.retried).incrementAndGet();
      OutboxMessage m = f.message();
      String reason = f.reason();
      if (isDead) {
        log.error("message {} ({} {}/{}) FAILED after {} attempts: {}", m.id(), m.type(), m.aggregateType(),
            m.aggregateId(), m.attempts() + 1, reason);
      }
      Listeners.relay(() -> r.listener.publishFailed(m, reason, isDead));
    }
    if (res.outage() != null) {
      r.outages.incrementAndGet();
      log.warn("relay {}: broker unavailable, the stream pauses without using attempts: {}", r.config.nodeId(),
          res.outage());
      Listeners.relay(() -> r.listener.transportUnavailable(res.outage()));
    }
  }

  private void fenced(int rows) {
    if (rows <= 0) {
      return;
    }
    r.fenced.addAndGet(rows);
    log.warn("relay {}: {} completions fenced (stream lease lost); the next streamer publishes them",
        r.config.nodeId(), rows);
    Listeners.relay(() -> r.listener.fenced(rows));
  }


  private static List<OutboxMessage> messages(List<Item> items) {
    return items.stream().map(Item::message).toList();
  }

  private static Collection<Long> xids(List<Item> items, List<Failure> failures) {
    Set<Long> out = new LinkedHashSet<>();
    items.forEach(i -> out.add(i.tx().xid));
    failures.forEach(f -> out.add(f.tx().xid));
    return out;
  }

  /** Confirms what is done (graceful stop) and stops the feed. */
  @Override
  public void close() {
    try {
      settle();
      confirm();
    } catch (RuntimeException e) {
      log.debug("final confirmation failed: {}", Reasons.of(e));
    } finally {
      feed.close();
    }
  }
}
