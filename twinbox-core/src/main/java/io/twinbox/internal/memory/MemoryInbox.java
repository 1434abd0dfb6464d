package io.twinbox.internal.memory;

import io.twinbox.InboxMessage;
import io.twinbox.internal.StorableText;
import io.twinbox.internal.memory.MemoryTransactions.Tx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The inbox tables of the in-memory store: records {@code (consumer, message id)} with their payload
 * hash, parked messages and attempt counters. A record is a row lock until its transaction ends, so
 * a concurrent delivery of the same id waits for it and then sees it (or, after a rollback, records
 * it itself). All methods run under the store's monitor.
 */
public final class MemoryInbox {
  /** The key of a record and of its row lock. */
  record Key(String consumer, String messageId) {}

  /** A stored inbox record. */
  public record Record(String messageId, String payloadHash, Instant receivedAt) {}

  /** A parked message as stored: the message, its hash, the reason and the attempts made. */
  public record Parked(String consumer, InboxMessage message, String payloadHash, String reason, int attempts,
      Instant parkedAt) {}

  /** The key of an aggregate's last applied sequence (and of its row lock). */
  record SequenceKey(String consumer, String aggregateType, String aggregateId) {}

  /** A message held by the ordering guard, and since when. */
  record Held(InboxMessage message, Instant heldAt) {}

  private record Staged(Map<Key, Record> records, List<Parked> parked, List<Key> cleared,
      Map<SequenceKey, Long> sequences, Map<Key, Held> holds, java.util.Set<Key> releases) {}

  private final Clock clock;
  private final MemoryTransactions transactions;
  private final Map<Key, Record> records = new LinkedHashMap<>();
  private final List<Parked> parked = new ArrayList<>();
  private final Map<Key, Integer> attempts = new HashMap<>();
  private final Map<SequenceKey, Long> sequences = new HashMap<>();
  private final Map<Key, Held> held = new LinkedHashMap<>();
  private final MemoryParked operations;

  public MemoryInbox(Clock clock, MemoryTransactions transactions) {
    this.clock = clock;
    this.transactions = transactions;
    this.operations = new MemoryParked(clock, transactions);
  }

  /** The parked rows' ids, states and audit trail. */
  public MemoryParked operations() {
    return operations;
  }

  public void clear() {
    records.clear();
    parked.clear();
    operations.clear();
    attempts.clear();
    sequences.clear();
    held.clear();
  }

  private Staged staged(Tx tx) {
    return tx.staged(this, k -> {
      Staged s = new Staged(new LinkedHashMap<>(), new ArrayList<>(), new ArrayList<>(), new HashMap<>(),
          new LinkedHashMap<>(), new java.util.HashSet<>());
      tx.onCommit(() -> {
        records.putAll(s.records());
        parked.addAll(s.parked());
        s.parked().forEach(operations::add);
        s.cleared().forEach(attempts::remove);
        sequences.putAll(s.sequences());
        held.putAll(s.holds());
        s.releases().forEach(held::remove);
      });
      return s;
    });
  }

  /** Records the ids not yet recorded (waiting for a transaction that holds one); returns them. */
  public List<String> record(Tx tx, String consumer, Map<String, String> hashes) {
    Staged s = staged(tx);
    List<String> fresh = new ArrayList<>();
    for (String id : hashes.keySet().stream().sorted().toList()) { // one lock order, as the dialects
      if (recordIfNew(tx, s, new Key(consumer, id), hashes.get(id))) {
        fresh.add(id);
      }
    }
    return fresh;
  }

  private boolean recordIfNew(Tx tx, Staged s, Key key, String hash) {
    transactions.lock(tx, key);
    if (records.containsKey(key) || s.records().containsKey(key)) {
      return false;
    }
    s.records().put(key, new Record(key.messageId(), hash, clock.instant()));
    return true;
  }

  public Map<String, String> storedHashes(Tx tx, String consumer, Collection<String> ids) {
    Staged s = staged(tx);
    Map<String, String> out = new HashMap<>();
    for (String id : ids) {
      Key key = new Key(consumer, id);
      Record r = s.records().containsKey(key) ? s.records().get(key) : records.get(key);
      if (r != null) {
        out.put(id, r.payloadHash());
      }
    }
    return out;
  }

  /** Parks the message and records it, so that it is not processed again. */
  public void park(Tx tx, String consumer, InboxMessage m, String payloadHash, String reason, int attempts) {
    Staged s = staged(tx);
    s.parked().add(new Parked(consumer, m, payloadHash, StorableText.reason(reason), attempts, clock.instant()));
    recordIfNew(tx, s, new Key(consumer, m.id()), payloadHash);
  }

  /** Increments the attempt counter at once (its own transaction); the error is only logged by callers. */
  public int recordAttempt(String consumer, String messageId, String error) {
    return attempts.merge(new Key(consumer, messageId), 1, Integer::sum);
  }

  /** The committed attempt counters of these messages; a message without one is absent. */
  public Map<String, Integer> storedAttempts(String consumer, Collection<String> ids) {
    Map<String, Integer> out = new HashMap<>();
    for (String id : ids) {
      Integer n = attempts.get(new Key(consumer, id));
      if (n != null) {
        out.put(id, n);
      }
    }
    return out;
  }

  public void clearAttempts(Tx tx, String consumer, String messageId) {
    staged(tx).cleared().add(new Key(consumer, messageId));
  }

  public int purgeProcessed(Duration age, int limit) {
    Instant before = clock.instant().minus(age);
    int n = 0;
    for (Iterator<Record> it = records.values().iterator(); it.hasNext() && n < limit; ) {
      if (it.next().receivedAt().isBefore(before)) {
        it.remove();
        n++;
      }
    }
    return n;
  }

  // ---- the ordering guard

  /** The last applied sequence, locked for {@code tx}. */
  public long lastSequence(Tx tx, String consumer, String aggregateType, String aggregateId) {
    SequenceKey key = new SequenceKey(consumer, aggregateType, aggregateId);
    transactions.lock(tx, key);
    Long staged = staged(tx).sequences().get(key);
    return staged != null ? staged : sequences.getOrDefault(key, 0L);
  }

  public void setLastSequence(Tx tx, String consumer, String aggregateType, String aggregateId, long sequence) {
    SequenceKey key = new SequenceKey(consumer, aggregateType, aggregateId);
    transactions.lock(tx, key);
    staged(tx).sequences().put(key, sequence);
  }

  public void hold(Tx tx, String consumer, InboxMessage m) {
    Staged s = staged(tx);
    Key key = new Key(consumer, m.id());
    s.releases().remove(key);
    s.holds().put(key, new Held(m, clock.instant()));
  }

  /**
   * Forgets a held message; true when this transaction saw it held. The held row is locked first,
   * as a DELETE locks it: a second transaction releasing it waits, then finds it gone.
   */
  public boolean release(Tx tx, String consumer, String messageId) {
    Staged s = staged(tx);
    Key key = new Key(consumer, messageId);
    transactions.lock(tx, new HeldRow(key));
    boolean was = s.holds().containsKey(key) || (held.containsKey(key) && !s.releases().contains(key));
    s.holds().remove(key);
    s.releases().add(key);
    return was;
  }

  /** The lock key of a held row (distinct from the inbox record's). */
  private record HeldRow(Key key) {}

  /** The held messages of {@code consumer} as {@code tx} sees them, oldest first. */
  private List<Held> visibleHeld(Tx tx, String consumer) {
    Staged s = staged(tx);
    List<Held> out = new ArrayList<>();
    held.forEach((k, h) -> {
      if (k.consumer().equals(consumer) && !s.releases().contains(k) && !s.holds().containsKey(k)) {
        out.add(h);
      }
    });
    s.holds().forEach((k, h) -> {
      if (k.consumer().equals(consumer)) {
        out.add(h);
      }
    });
    return out;
  }

  public List<InboxMessage> held(Tx tx, String consumer, String aggregateType, String aggregateId) {
    return visibleHeld(tx, consumer).stream().map(Held::message)
        .filter(m -> aggregateType.equals(m.aggregateType() == null ? "" : m.aggregateType())
            && aggregateId.equals(m.aggregateId()))
        .sorted(java.util.Comparator.comparingLong(InboxMessage::sequence)).toList();
  }

  public List<InboxMessage> heldLongerThan(Tx tx, String consumer, Duration age, int limit) {
    Instant before = clock.instant().minus(age);
    return visibleHeld(tx, consumer).stream().filter(h -> h.heldAt().isBefore(before))
        .sorted(java.util.Comparator.comparing(Held::heldAt)).limit(limit).map(Held::message).toList();
  }

  /** The consumers with records or parked messages, in the order they first had one. */
  public List<String> consumers() {
    java.util.Set<String> names = new java.util.LinkedHashSet<>();
    records.keySet().forEach(k -> names.add(k.consumer()));
    parked.forEach(p -> names.add(p.consumer()));
    return List.copyOf(names);
  }

  /** The records of {@code consumer}, oldest first. */
  public List<Record> records(String consumer) {
    List<Record> out = new ArrayList<>();
    records.forEach((k, r) -> {
      if (k.consumer().equals(consumer)) {
        out.add(r);
      }
    });
    return out;
  }

  /** The parked messages of {@code consumer}, in the order they were parked. */
  public List<Parked> parked(String consumer) {
    return parked.stream().filter(p -> p.consumer().equals(consumer)).toList();
  }

  /** Message id → persisted attempts, of {@code consumer}. */
  public Map<String, Integer> attempts(String consumer) {
    Map<String, Integer> out = new LinkedHashMap<>();
    attempts.forEach((k, n) -> {
      if (k.consumer().equals(consumer)) {
        out.put(k.messageId(), n);
      }
    });
    return out;
  }
}
