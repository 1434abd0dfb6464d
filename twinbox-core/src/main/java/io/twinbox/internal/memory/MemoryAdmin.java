package io.twinbox.internal.memory;

import io.twinbox.HeldAggregate;
import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The operator's statements on the in-memory outbox, with the semantics of the JDBC {@code AdminSql}.
 * All methods run under the store's monitor.
 */
public final class MemoryAdmin {
  private final Clock clock;
  private final int partitions;
  private final MemoryOutbox outbox;
  private final MemoryLeases leases;

  public MemoryAdmin(Clock clock, int partitions, MemoryOutbox outbox, MemoryLeases leases) {
    this.clock = clock;
    this.partitions = partitions;
    this.outbox = outbox;
    this.leases = leases;
  }

  public OutboxStatus status() {
    Instant now = clock.instant();
    long pending = 0;
    long retrying = 0;
    long failed = 0;
    Set<MemoryOutbox.Aggregate> held = new HashSet<>();
    Instant oldest = null;
    for (Row r : outbox.rows()) {
      if (r.status == Row.Status.PENDING) {
        pending++;
        retrying += r.attempts > 0 ? 1 : 0;
        oldest = oldest == null ? r.createdAt : oldest;
      }
      failed += r.status == Row.Status.FAILED ? 1 : 0;
      if (r.aggregateId != null && troubled(r)) {
        held.add(new MemoryOutbox.Aggregate(r.aggregateType, r.aggregateId));
      }
    }
    Duration age = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
    Map<String, Integer> owners = leases.liveOwners();
    int owned = owners.values().stream().mapToInt(Integer::intValue).sum();
    return new OutboxStatus(pending, retrying, failed, held.size(), age, owners, partitions - owned);
  }

  public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
    List<StoredEvent> out = new ArrayList<>();
    for (Row r : outbox.rows()) {
      if (out.size() >= limit) {
        break;
      }
      if (troubled(r) && matches(type, r.type) && matches(aggregateType, r.aggregateType)
          && matches(aggregateId, r.aggregateId)) {
        out.add(stored(r));
      }
    }
    return out;
  }

  private static StoredEvent stored(Row r) {
    return new StoredEvent(r.position, r.id, r.aggregateType, r.aggregateId, r.sequence, r.type, r.version,
        r.status.name(), r.attempts, r.lastError, r.createdAt, r.nextAttemptAt);
  }

  private static boolean troubled(Row r) {
    return r.status == Row.Status.FAILED || (r.status == Row.Status.PENDING && r.attempts > 0);
  }

  /** Per aggregate its troubled row of lowest sequence, listed by that row's position. */
  public List<HeldAggregate> heldAggregates(String aggregateType, int limit) {
    Map<MemoryOutbox.Aggregate, Row> holding = new HashMap<>();
    for (Row r : outbox.rows()) {
      if (r.aggregateId != null && troubled(r) && matches(aggregateType, r.aggregateType)) {
        holding.merge(new MemoryOutbox.Aggregate(r.aggregateType, r.aggregateId), r,
            (a, b) -> a.sequence <= b.sequence ? a : b);
      }
    }
    return holding.values().stream().sorted(Comparator.comparingLong((Row r) -> r.position)).limit(limit)
        .map(r -> new HeldAggregate(r.aggregateType, r.aggregateId, stored(r), r.createdAt)).toList();
  }

  public List<StoredEvent> pending(PendingQuery q) {
    Instant writtenBy = clock.instant().minus(q.olderThan());
    List<StoredEvent> out = new ArrayList<>();
    for (Row r : outbox.rows()) {
      if (out.size() >= q.limit()) {
        break;
      }
      if (r.status == Row.Status.PENDING && r.position > q.afterPosition() && !r.createdAt.isAfter(writtenBy)
          && matches(q.type(), r.type) && matches(q.aggregateType(), r.aggregateType)
          && matches(q.aggregateId(), r.aggregateId)) {
        out.add(stored(r));
      }
    }
    return out;
  }

  public long countPublished(Duration age) {
    Instant before = clock.instant().minus(age);
    return outbox.rows().stream()
        .filter(r -> r.status == Row.Status.PUBLISHED && r.publishedAt.isBefore(before)).count();
  }

  private static boolean matches(String wanted, String value) {
    return wanted == null || wanted.equals(value);
  }

  public int retry(EventSelector s) {
    int n = 0;
    for (Row r : failed(s)) {
      r.status = Row.Status.PENDING;
      r.attempts = 0;
      r.nextAttemptAt = Instant.MIN;
      n++;
    }
    return n;
  }

  public int skip(EventSelector s) {
    List<Row> rows = failed(s);
    outbox.rows().removeAll(rows);
    return rows.size();
  }

  private List<Row> failed(EventSelector s) {
    UUID id = s.id();
    if (id == null && s.aggregateType() == null && !s.all()) {
      throw new IllegalArgumentException("a selector needs an id, an aggregate, or all");
    }
    List<Row> out = new ArrayList<>();
    for (Row r : outbox.rows()) {
      boolean selected = id != null ? id.equals(r.id)
          : s.aggregateType() == null || (s.aggregateType().equals(r.aggregateType)
              && Objects.equals(s.aggregateId(), r.aggregateId));
      if (r.status == Row.Status.FAILED && selected) {
        out.add(r);
      }
    }
    return out;
  }

  public int purgePublished(Duration age, int limit) {
    Instant before = clock.instant().minus(age);
    int n = 0;
    for (Iterator<Row> it = outbox.rows().iterator(); it.hasNext() && n < limit; ) {
      Row r = it.next();
      if (r.status == Row.Status.PUBLISHED && r.publishedAt.isBefore(before)) {
        it.remove();
        n++;
      }
    }
    return n;
  }

  public int purgeSuppliedIds(Duration age, int limit) {
    Instant before = clock.instant().minus(age);
    int n = 0;
    for (Iterator<Instant> it = outbox.suppliedIds().values().iterator(); it.hasNext() && n < limit; ) {
      if (it.next().isBefore(before)) {
        it.remove();
        n++;
      }
    }
    return n;
  }
}
