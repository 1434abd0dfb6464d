package io.twinbox.internal;

import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The inbox's per-aggregate ordering guard (R17) for one batch, in the consumer's transaction: it
 * reads (and locks) the last applied sequence of each aggregate the batch touches, decides for each
 * new message whether it applies, is stale or must wait, releases the held messages a newly applied
 * one makes contiguous, and writes the new last sequences before the commit. Not thread-safe: one
 * instance per batch.
 */
final class OrderingGuard {
  /** What becomes of a new message. */
  enum Decision { APPLY, STALE, HOLD }

  /** Held messages a newly applied one released: those now in sequence, and those it made stale. */
  record Released(List<InboxMessage> apply, List<InboxMessage> stale) {}

  private record Aggregate(String type, String id) {
    static Aggregate of(InboxMessage m) {
      return new Aggregate(m.aggregateType() == null ? "" : m.aggregateType(), m.aggregateId());
    }
  }

  private static final Comparator<Aggregate> ORDER =
      Comparator.comparing(Aggregate::type).thenComparing(Aggregate::id);

  private final InboxStore store;
  private final Connection c;
  private final String consumer;
  private final InboxOrdering mode;
  private final Map<Aggregate, Long> last = new HashMap<>();
  private final Set<Aggregate> changed = new LinkedHashSet<>();

  /**
   * Locks the last sequences of the aggregates of {@code guarded} in one global order, so that two
   * transactions of one consumer cannot deadlock on them.
   */
  OrderingGuard(InboxStore store, Connection c, String consumer, InboxOrdering mode, List<InboxMessage> guarded) {
    this.store = store;
    this.c = c;
    this.consumer = consumer;
    this.mode = mode;
    Set<Aggregate> aggregates = new TreeSet<>(ORDER);
    guarded.forEach(m -> aggregates.add(Aggregate.of(m)));
    aggregates.forEach(this::last);
  }

  /** The longest aggregate type and id the guard's table keys (a Twinbox producer writes no longer ones). */
  static final int MAX_KEY_LENGTH = 255;

  /** Messages the guard looks at: an aggregate id and a sequence above 0, keys within the table's limit. */
  static boolean guards(InboxMessage m) {
    return m.aggregateId() != null && m.sequence() > 0 && m.aggregateId().length() <= MAX_KEY_LENGTH
        && (m.aggregateType() == null || m.aggregateType().length() <= MAX_KEY_LENGTH);
  }

  Decision decide(InboxMessage m) {
    Aggregate a = Aggregate.of(m);
    long applied = last(a);
    if (m.sequence() <= applied) {
      return Decision.STALE;
    }
    if (mode == InboxOrdering.DELTA && m.sequence() > applied + 1) {
      return Decision.HOLD;
    }
    last.put(a, m.sequence());
    changed.add(a);
    return Decision.APPLY;
  }

  void hold(InboxMessage m) {
    store.hold(c, consumer, m);
  }

  /** DELTA: releases the held messages of {@code applied}'s aggregate that now follow without a gap. */
  Released release(InboxMessage applied) {
    if (mode != InboxOrdering.DELTA) {
      return new Released(List.of(), List.of());
    }
    Aggregate a = Aggregate.of(applied);
    List<InboxMessage> apply = new ArrayList<>();
    List<InboxMessage> stale = new ArrayList<>();
    long next = last(a) + 1;
    for (InboxMessage h : store.held(c, consumer, applied.aggregateType() == null ? "" : applied.aggregateType(),
        applied.aggregateId())) {
      if (h.sequence() < next) {
        stale.add(h); // its sequence was applied meanwhile under another message id
      } else if (h.sequence() == next) {
        apply.add(h);
        next++;
      } else {
        break;
      }
      store.release(c, consumer, h.id());
    }
    last.put(a, next - 1);
    changed.add(a);
    return new Released(apply, stale);
  }

  /** The messages held longer than {@code gapTimeout}, each released, with why it is to be parked. */
  List<Map.Entry<InboxMessage, String>> overdue(Duration gapTimeout, int limit) {
    List<Map.Entry<InboxMessage, String>> out = new ArrayList<>();
    for (InboxMessage h : store.heldLongerThan(c, consumer, gapTimeout, limit)) {
      long missing = last(Aggregate.of(h)) + 1;
      if (!store.releaseHeld(c, consumer, h.id())) {
        continue; // another consumer parked it meanwhile
      }
      out.add(Map.entry(h, "ordering guard: sequence " + h.sequence() + " of " + h.aggregateType() + "/"
          + h.aggregateId() + " waited longer than gapTimeout (" + gapTimeout + ") for sequence " + missing
          + "; parked so that nothing is applied out of order"));
    }
    return out;
  }

  /** Writes the last sequences that moved on. */
  void finish() {
    for (Aggregate a : changed) {
      store.setLastSequence(c, consumer, a.type(), a.id(), last.get(a));
    }
  }

  private long last(Aggregate a) {
    Long known = last.get(a);
    if (known == null) {
      known = store.lastSequence(c, consumer, a.type(), a.id());
      last.put(a, known);
    }
    return known;
  }
}
