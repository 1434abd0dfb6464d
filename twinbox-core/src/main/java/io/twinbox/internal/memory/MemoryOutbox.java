package io.twinbox.internal.memory;

import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.internal.Headers;
import io.twinbox.internal.memory.MemoryTransactions.Tx;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import io.twinbox.spi.UndecodableRow;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The outbox table, the per-aggregate counters and the ledger of caller-supplied ids of the
 * in-memory store, with the JDBC dialects' claim and completion rules. All methods run under the
 * store's monitor.
 */
public final class MemoryOutbox {
  /** The aggregate key of a counter or lock. */
  record Aggregate(String type, String id) {}

  private record SuppliedId(UUID id) {}

  private record Staged(Map<Aggregate, Long> sequences, List<Row> rows, Set<UUID> supplied) {}

  private final Clock clock;
  private final int partitions;
  private final MemoryTransactions transactions;
  private final TreeMap<Long, Row> rows = new TreeMap<>();
  private final Map<Aggregate, Long> lastSequences = new HashMap<>();
  private final Map<UUID, Instant> suppliedIds = new LinkedHashMap<>();
  private final List<Runnable> writeCallbacks = new ArrayList<>();
  private long nextPosition = 1;

  public MemoryOutbox(Clock clock, int partitions, MemoryTransactions transactions) {
    this.clock = clock;
    this.partitions = partitions;
    this.transactions = transactions;
  }

  public void clear() {
    rows.clear();
    lastSequences.clear();
    suppliedIds.clear();
  }

  /** Stages the events in {@code tx}; caller-supplied ids are checked (and locked) before any row. */
  public void append(Tx tx, List<PreparedEvent> events) {
    Staged staged = tx.staged(this, k -> new Staged(new HashMap<>(), new ArrayList<>(), new HashSet<>()));
    List<UUID> supplied = events.stream().filter(e -> e.event().id() != null).map(PreparedEvent::id).sorted().toList();
    for (UUID id : supplied) {
      transactions.lock(tx, new SuppliedId(id));
      if (suppliedIds.containsKey(id) || staged.supplied().contains(id)) {
        throw new DuplicateMessageIdException(id, null);
      }
    }
    boolean first = staged.rows().isEmpty() && staged.supplied().isEmpty();
    staged.supplied().addAll(supplied);
    // Counter locks in one global order, as the dialects take them, so writers cannot deadlock.
    List<PreparedEvent> ordered = new ArrayList<>(events);
    ordered.sort(Comparator.comparing((PreparedEvent e) -> e.event().ordered() ? 0 : 1)
        .thenComparing(e -> e.event().ordered() ? e.event().aggregateType() : "")
        .thenComparing(e -> e.event().ordered() ? e.event().aggregateId() : ""));
    Instant now = clock.instant();
    for (PreparedEvent e : ordered) {
      long sequence = 0;
      if (e.event().ordered()) {
        Aggregate a = new Aggregate(e.event().aggregateType(), e.event().aggregateId());
        transactions.lock(tx, a);
        sequence = staged.sequences().getOrDefault(a, lastSequences.getOrDefault(a, 0L)) + 1;
        staged.sequences().put(a, sequence);
      }
      staged.rows().add(new Row(nextPosition++, e, sequence, partitionOf(e), now));
    }
    if (first) {
      tx.onCommit(() -> {
        lastSequences.putAll(staged.sequences());
        staged.rows().forEach(r -> rows.put(r.position, r));
        staged.supplied().forEach(id -> suppliedIds.put(id, clock.instant()));
      });
      tx.afterCommit(() -> {
        List<Runnable> callbacks;
        synchronized (transactions) {
          callbacks = List.copyOf(writeCallbacks);
        }
        callbacks.forEach(Runnable::run);
      });
    }
  }

  private int partitionOf(PreparedEvent e) {
    String key = e.event().aggregateType() + '/' + (e.event().ordered() ? e.event().aggregateId() : e.id().toString());
    return Math.floorMod(key.hashCode(), partitions);
  }

  public AutoCloseable onWrite(Runnable callback) {
    writeCallbacks.add(callback);
    return () -> {
      synchronized (transactions) {
        writeCallbacks.remove(callback);
      }
    };
  }

  /**
   * Due pending rows of partitions {@code nodeId} holds (leases not run out), in position order,
   * skipping aggregates held back by an earlier FAILED row or an earlier row waiting for its retry.
   */
  public List<ClaimedRow> claim(String nodeId, MemoryLeases leases, Collection<PartitionLease> presented, int limit) {
    Instant now = clock.instant();
    Set<Integer> asked = new HashSet<>();
    presented.forEach(l -> asked.add(l.partition()));
    Set<Aggregate> held = new HashSet<>();
    List<ClaimedRow> out = new ArrayList<>();
    for (Row r : rows.values()) {
      if (out.size() >= limit) {
        break;
      }
      Aggregate a = r.aggregateId == null ? null : new Aggregate(r.aggregateType, r.aggregateId);
      if (a != null && held.contains(a)) {
        continue;
      }
      boolean due = !r.nextAttemptAt.isAfter(now);
      if (r.holdsItsAggregate(now)) {
        held.add(a);
      }
      if (r.status == Row.Status.PENDING && due && asked.contains(r.partition) && leases.usable(nodeId, r.partition)) {
        out.add(r.spoiled != null ? undecodable(r) : message(r));
      }
    }
    return out;
  }

  private static OutboxMessage message(Row r) {
    return new OutboxMessage(r.position, r.id, r.aggregateType, r.aggregateId, r.sequence, r.partition, r.type,
        r.version, r.payload, Headers.fromJson(r.headersJson), r.correlationId, r.causationId, r.traceparent,
        r.occurredAt, r.createdAt, r.attempts, null);
  }

  private static UndecodableRow undecodable(Row r) {
    return new UndecodableRow(r.position, r.id.toString(), r.aggregateType, r.aggregateId, r.sequence, r.partition,
        r.attempts, "undecodable row: " + r.spoiled);
  }

  /** Completes and fails rows of partitions whose lease ({@code nodeId}, epoch) is still held. */
  public Completion complete(String nodeId, MemoryLeases leases, Collection<PartitionLease> presented,
      List<OutboxMessage> published, List<FailedPublish> failed, CompletionMode mode) {
    Set<Integer> held = new HashSet<>();
    presented.stream().filter(l -> leases.holds(nodeId, l)).forEach(l -> held.add(l.partition()));
    Instant now = clock.instant();
    int completed = 0;
    for (OutboxMessage m : published) {
      Row r = rows.get(m.position());
      if (r != null && r.status == Row.Status.PENDING && held.contains(r.partition)) {
        if (mode == CompletionMode.DELETE) {
          rows.remove(r.position);
        } else {
          r.status = Row.Status.PUBLISHED;
          r.publishedAt = now;
        }
        completed++;
      }
    }
    int failedRows = 0;
    for (FailedPublish f : failed) {
      Row r = rows.get(f.position());
      if (r != null && r.status == Row.Status.PENDING && held.contains(r.partition)) {
        r.attempts++;
        r.status = f.dead() ? Row.Status.FAILED : Row.Status.PENDING;
        r.nextAttemptAt = now.plus(f.retryAfter());
        r.lastError = f.error();
        r.firstFailedAt = r.firstFailedAt == null ? now : r.firstFailedAt;
        r.lastFailedAt = now;
        if (f.dead() && f.deadLetter()) {
          r.deadLetter = "PENDING";
        }
        failedRows++;
      }
    }
    return new Completion(completed, failedRows, published.size() - completed + failed.size() - failedRows);
  }

  /** Rows with a pending dead letter, of presented partitions {@code nodeId} still holds, oldest first. */
  public List<DeadLetter> claimDeadLetters(String nodeId, MemoryLeases leases, Collection<PartitionLease> presented,
      int limit) {
    Set<Integer> asked = new HashSet<>();
    presented.forEach(l -> asked.add(l.partition()));
    List<DeadLetter> out = new ArrayList<>();
    for (Row r : rows.values()) {
      if (out.size() >= limit) {
        break;
      }
      if ("PENDING".equals(r.deadLetter) && asked.contains(r.partition) && leases.usable(nodeId, r.partition)) {
        if (r.spoiled != null) {
          r.deadLetter = "DROPPED"; // no CloudEvent can be made of it
          continue;
        }
        out.add(new DeadLetter(message(r), r.lastError, r.attempts, r.firstFailedAt, r.lastFailedAt));
      }
    }
    return out;
  }

  /** Marks pending dead letters sent; returns how many. */
  public int deadLettersSent(Collection<Long> positions) {
    int n = 0;
    for (long p : positions) {
      Row r = rows.get(p);
      if (r != null && "PENDING".equals(r.deadLetter)) {
        r.deadLetter = "SENT";
        n++;
      }
    }
    return n;
  }

  /** The rows in position order (live objects: callers copy what they show). */
  public Collection<Row> rows() {
    return rows.values();
  }

  public long lastSequence(String aggregateType, String aggregateId) {
    return lastSequences.getOrDefault(new Aggregate(aggregateType, aggregateId), 0L);
  }

  /** The ledger of caller-supplied ids: id → when it was recorded. */
  public Map<UUID, Instant> suppliedIds() {
    return suppliedIds;
  }

  /** Makes the row of {@code id} one a claim cannot decode, with {@code problem} as its reason. */
  public boolean spoil(UUID id, String problem) {
    for (Row r : rows.values()) {
      if (r.id.equals(id)) {
        r.spoiled = problem;
        return true;
      }
    }
    return false;
  }
}
