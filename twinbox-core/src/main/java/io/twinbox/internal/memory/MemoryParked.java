package io.twinbox.internal.memory;

import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedMessageException.Problem;
import io.twinbox.ParkedState;
import io.twinbox.ParkedSummary;
import io.twinbox.internal.memory.MemoryTransactions.Tx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The parked rows' operator side in the in-memory store, as the JDBC schema's V7 keeps it: an id per
 * parked message, its state with when and by whom, the audit trail. A change takes the row's lock
 * ({@link MemoryTransactions#lock}), so an operator's change waits for a replay in progress, as
 * {@code SELECT … FOR UPDATE} does. All methods run under the store's monitor.
 */
public final class MemoryParked {
  /** A parked row: the message as parked, and what operators and replays made of it. */
  static final class Entry {
    final long id;
    final MemoryInbox.Parked parked;
    String reason;
    int attempts;
    ParkedState state = ParkedState.PARKED;
    Instant stateAt;
    String stateBy;

    Entry(long id, MemoryInbox.Parked parked) {
      this.id = id;
      this.parked = parked;
      this.reason = parked.reason();
      this.attempts = parked.attempts();
    }

    ParkedMessage view(boolean withPayload) {
      var m = parked.message();
      return new ParkedMessage(id, parked.consumer(), m.id(), m.type(), m.version(), m.source(), m.aggregateType(),
          m.aggregateId(), m.sequence(), reason, attempts, parked.parkedAt(), m.headers(), m.correlationId(),
          m.causationId(), m.traceparent(), m.origin(), parked.payloadHash(), state, stateAt, stateBy, true,
          withPayload ? m.payload() : null);
    }
  }

  private record Lock(long id) {}

  private final Clock clock;
  private final MemoryTransactions transactions;
  private final Map<Long, Entry> rows = new TreeMap<>();
  private final List<ParkedAudit> audits = new ArrayList<>();
  private long nextId = 1;

  MemoryParked(Clock clock, MemoryTransactions transactions) {
    this.clock = clock;
    this.transactions = transactions;
  }

  void add(MemoryInbox.Parked p) {
    long id = nextId++;
    rows.put(id, new Entry(id, p));
  }

  void clear() {
    rows.clear();
    audits.clear();
  }

  public List<ParkedMessage> list(ParkedFilter filter) {
    return matching(filter).stream().limit(filter.limit()).map(e -> e.view(false)).toList();
  }

  public Optional<ParkedMessage> one(long id, boolean withPayload) {
    return Optional.ofNullable(rows.get(id)).map(e -> e.view(withPayload));
  }

  /** Moves one row to {@code target}, in {@code tx} under its lock; the typed error when its state forbids it. */
  public ParkedMessage change(Tx tx, long id, ParkedState target, String action, String by) {
    transactions.lock(tx, new Lock(id));
    Entry e = rows.get(id);
    if (e == null) {
      throw new ParkedMessageException(id, Problem.NOT_FOUND);
    }
    switch (e.state) {
      case REPLAYED -> throw new ParkedMessageException(id, Problem.ALREADY_REPLAYED);
      case DISCARDED -> throw new ParkedMessageException(id, Problem.ALREADY_DISCARDED);
      default -> { }
    }
    if (target == ParkedState.REPLAYING && e.state == ParkedState.REPLAYING) {
      return e.view(false);
    }
    set(e, target, action, by, null);
    return e.view(false);
  }

  public int changeAll(Tx tx, ParkedFilter filter, List<ParkedState> from, ParkedState target, String action,
      String by) {
    List<Entry> chosen = matching(filter).stream().filter(e -> from.contains(e.state)).limit(filter.limit()).toList();
    chosen.forEach(e -> transactions.lock(tx, new Lock(e.id)));
    int n = 0;
    for (Entry e : chosen) {
      if (from.contains(e.state)) { // a lock wait may have let a replay finish
        set(e, target, action, by, null);
        n++;
      }
    }
    return n;
  }

  private void set(Entry e, ParkedState target, String action, String by, String detail) {
    e.state = target;
    e.stateAt = clock.instant();
    e.stateBy = by;
    audits.add(new ParkedAudit(e.id, e.parked.consumer(), e.parked.message().id(), action, by, e.stateAt, detail));
  }

  public List<ParkedSummary> summary() {
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, Instant> oldest = new LinkedHashMap<>();
    for (Entry e : rows.values()) {
      if (e.state == ParkedState.PARKED || e.state == ParkedState.REPLAYING) {
        long[] c = counts.computeIfAbsent(e.parked.consumer(), k -> new long[2]);
        c[e.state == ParkedState.PARKED ? 0 : 1]++;
        oldest.merge(e.parked.consumer(), e.parked.parkedAt(), (a, b) -> a.isBefore(b) ? a : b);
      }
    }
    Instant now = clock.instant();
    List<ParkedSummary> out = new ArrayList<>();
    counts.forEach((consumer, c) -> out.add(new ParkedSummary(consumer, c[0], c[1],
        max0(Duration.between(oldest.get(consumer), now)))));
    return out;
  }

  public List<ParkedAudit> audit(long id) {
    return audits.stream().filter(a -> a.parkedId() == id).toList();
  }

  // ---- the consumer's side of a replay

  public List<ParkedMessage> replayRequests(String consumer, int limit) {
    return rows.values().stream().filter(e -> e.state == ParkedState.REPLAYING && e.parked.consumer().equals(consumer))
        .sorted(Comparator.comparing((Entry e) -> e.stateAt).thenComparingLong(e -> e.id)).limit(limit)
        .map(e -> e.view(true)).toList();
  }

  /** Locks the row for {@code tx}; the row when it is still replaying for {@code consumer}. */
  public Optional<ParkedMessage> lockReplaying(Tx tx, String consumer, long id) {
    transactions.lock(tx, new Lock(id));
    Entry e = rows.get(id);
    return e != null && e.state == ParkedState.REPLAYING && e.parked.consumer().equals(consumer)
        ? Optional.of(e.view(false)) : Optional.empty();
  }

  /** Marks the row REPLAYED when {@code tx} commits (it holds the row's lock since {@link #lockReplaying}). */
  public void finishReplay(Tx tx, long id, boolean applied, String by) {
    transactions.lock(tx, new Lock(id));
    tx.onCommit(() -> set(rows.get(id), ParkedState.REPLAYED,
        applied ? ParkedAudit.REPLAYED : ParkedAudit.REPLAYED_NOOP, by, null));
  }

  public boolean replayFailed(Tx tx, String consumer, long id, String reason, String by) {
    transactions.lock(tx, new Lock(id));
    Entry e = rows.get(id);
    if (e == null || e.state != ParkedState.REPLAYING || !e.parked.consumer().equals(consumer)) {
      return false;
    }
    e.reason = reason;
    e.attempts++;
    set(e, ParkedState.PARKED, ParkedAudit.REPLAY_FAILED, by, reason);
    return true;
  }

  private List<Entry> matching(ParkedFilter filter) {
    Instant now = clock.instant();
    return rows.values().stream()
        .filter(e -> filter.matches(e.view(false), Duration.between(e.parked.parkedAt(), now)))
        .sorted(Comparator.comparing((Entry e) -> e.parked.parkedAt()).thenComparingLong(e -> e.id)).toList();
  }

  private static Duration max0(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }
}
