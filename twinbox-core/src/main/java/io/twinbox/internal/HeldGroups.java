package io.twinbox.internal;

import io.twinbox.spi.ChangeFeedStore.TableGroup;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What the WAL relay's stream and its sweep know about each other. Not thread-safe: the stream
 * thread owns it.
 *
 * <p><b>Held groups.</b> A group (aggregate, or one unordered event) is held while the table has rows
 * of it that the stream passed without publishing: a failed or retrying event, a row inserted as
 * FAILED, events queued behind those, and at start every group that has rows in the table at all.
 * The stream never publishes an event of a held group — it leaves it in the table, where the sweep
 * (the polling relay's own claim, which walks each aggregate in sequence order and skips aggregates
 * held back by a failure) publishes it in order. A group is released once the sweep published every
 * row the stream left of it (its highest left sequence) and the table holds nothing that holds it
 * back; or once a sweep that claimed everything claimable left no row of it behind.
 *
 * <p><b>Swept events.</b> The sweep may publish rows before the stream reaches them. It records the
 * highest sequence it published per group, with the database's log position after its claim; the
 * stream skips events at or below that sequence, and a held aggregate goes back to the stream at
 * the event right after it. A record of a group that is not held is forgotten once the stream is
 * past its position, since no earlier event can arrive any more.
 */
final class HeldGroups {
  private static final class Held {
    long maxLeftSequence;
    int unsettled;
    /** Held because the table had rows of it when the stream started: its lowest sequence then. */
    long startMinSequence = Long.MIN_VALUE;
    boolean startHeldByFailure;
    boolean seenOnStream;
    /** Held by nothing but the start rule: no failure, nothing left by the stream, nothing seen on it. */
    boolean onlyAtStart;
  }

  private record Swept(long maxSequence, long position) {}

  private final Map<GroupKey, Held> held = new HashMap<>();
  private final Map<GroupKey, Swept> swept = new HashMap<>();

  /** Starts with every group the table holds rows of. */
  HeldGroups(Map<GroupKey, TableGroup> inTable) {
    inTable.forEach((g, t) -> {
      hold(g, t.maxSequence());
      Held h = held.get(g);
      h.startMinSequence = t.minSequence();
      h.startHeldByFailure = t.held();
      h.onlyAtStart = !t.held();
    });
  }

  /**
   * True while {@code g} is held only because the table had rows of it when the stream started —
   * no failure holds it, the stream neither left an event of it nor delivered one. Such a group's
   * rows are most likely ahead of the stream (a backlog written while no relay streamed); its first
   * event on the stream then {@linkplain #releasedByFirstEvent releases} it, unless the sweep has
   * published that event first.
   */
  boolean awaitingStream(GroupKey g) {
    Held h = held.get(g);
    return h != null && h.onlyAtStart && !h.seenOnStream;
  }

  /**
   * Called with the stream's first event of a group held since the start; true when that event
   * proves that none of the group's rows in the table lies behind the stream, so the group may go
   * back to the stream at once. That is so when the group had no failed row and the event's
   * sequence is at most the lowest the table held: commit order is sequence order, so every row of
   * the group in the table committed after this event, i.e. after the stream's start, and the stream
   * delivers each of them in order. (An event below the lowest is a replay of a row already
   * published and deleted.) An unordered event the stream delivers is ahead of it by definition.
   */
  boolean releasedByFirstEvent(GroupKey g, long sequence) {
    Held h = held.get(g);
    if (h == null || h.startMinSequence == Long.MIN_VALUE || h.seenOnStream) {
      return false;
    }
    h.seenOnStream = true;
    return !h.startHeldByFailure && h.unsettled == 0 && (!g.ordered() || sequence <= h.startMinSequence);
  }

  boolean isHeld(GroupKey g) {
    return held.containsKey(g);
  }

  int size() {
    return held.size();
  }

  /** The stream left (or failed) an event of {@code g} with {@code sequence}: the group is held. */
  void hold(GroupKey g, long sequence) {
    Held h = held.computeIfAbsent(g, k -> new Held());
    h.maxLeftSequence = Math.max(h.maxLeftSequence, sequence);
    h.onlyAtStart = false;
  }

  /**
   * A left event of {@code g} whose row may not be visible yet ({@code +1}), or now is ({@code
   * -1}). A group with such an event is never released: the sweep could not have seen the row.
   */
  void unsettled(GroupKey g, int delta) {
    Held h = held.get(g);
    if (h != null) {
      h.unsettled += delta;
    }
  }

  /**
   * True when a held aggregate may go back to the stream with this event: the sweep published its
   * immediate predecessor ({@code sequence - 1}) and nothing left of it waits to become visible.
   * Sequences are gap-free per aggregate and each aggregate's rows become visible in sequence order
   * (the counter row's lock), and the sweep publishes an aggregate's rows in sequence order, so
   * every earlier row is then done. (A gap left by an operator's {@code skip} only means the group
   * waits for the sweep's other release rules.)
   */
  boolean resumable(GroupKey g, long sequence) {
    Held h = held.get(g);
    Swept s = swept.get(g);
    return g.ordered() && h != null && h.unsettled == 0 && s != null && s.maxSequence() == sequence - 1;
  }

  /**
   * The highest sequence of a held group the sweep may publish: what the stream left of it, or what
   * the table held at start. Newer rows of the group are ahead of the stream; the sweep leaves them
   * to it, so that the stream can take the group back instead of chasing the sweep.
   */
  long sweepLimit(GroupKey g) {
    Held h = held.get(g);
    return h == null ? Long.MIN_VALUE : h.maxLeftSequence;
  }

  /** True when the sweep already published this event (the stream then skips it). */
  boolean alreadySwept(OutboxMessage m) {
    Swept s = swept.get(GroupKey.of(m));
    return s != null && (m.aggregateId() == null || m.sequence() <= s.maxSequence());
  }

  /** The sweep published {@code m}; its claim saw the database up to {@code position}. */
  void sweptOne(OutboxMessage m, long position) {
    swept.merge(GroupKey.of(m), new Swept(m.sequence(), position),
        (a, b) -> new Swept(Math.max(a.maxSequence(), b.maxSequence()), Math.max(a.position(), b.position())));
  }

  /** Held groups with no unsettled left event: the only ones a sweep about to start may release. */
  List<GroupKey> settledHeld() {
    List<GroupKey> out = new ArrayList<>();
    held.forEach((g, h) -> {
      if (h.unsettled == 0) {
        out.add(g);
      }
    });
    return out;
  }

  /**
   * Of {@code candidates} (taken before the sweep's claim), those the sweep has caught up with:
   * it published their highest left event, or its claim returned every claimable row.
   */
  List<GroupKey> caughtUp(Collection<GroupKey> candidates, boolean claimedAll) {
    List<GroupKey> out = new ArrayList<>();
    for (GroupKey g : candidates) {
      Held h = held.get(g);
      if (h == null) {
        continue;
      }
      Swept s = swept.get(g);
      boolean publishedLast = s != null && (!g.ordered() || s.maxSequence() >= h.maxLeftSequence);
      if (claimedAll || publishedLast) {
        out.add(g);
      }
    }
    return out;
  }

  void release(Collection<GroupKey> groups) {
    groups.forEach(held::remove);
  }

  /**
   * Forgets sweep records the stream is past (every transaction up to {@code position} is done), of
   * groups that are not held: a held group keeps its record, which lets it {@linkplain #resumable
   * resume} on the stream.
   */
  void streamReached(long position) {
    for (Iterator<Map.Entry<GroupKey, Swept>> it = swept.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<GroupKey, Swept> e = it.next();
      if (e.getValue().position() <= position && !held.containsKey(e.getKey())) {
        it.remove();
      }
    }
  }

  int sweptRecords() {
    return swept.size();
  }
}
