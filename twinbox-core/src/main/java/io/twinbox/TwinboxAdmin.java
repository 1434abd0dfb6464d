package io.twinbox;

import io.twinbox.spi.InboxAdminStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * What an operator may see and do, for the CLI, the admin page, health checks and your own tools:
 * the outbox's status, the FAILED and retrying events, the held aggregates, pending events page by
 * page, retry and skip of FAILED events, retention purges; and the inbox's parked messages: list,
 * show, replay, discard (one or in bulk, each change with an audit record in the database). A
 * facade over a store's {@link OutboxAdminStore} and {@link InboxAdminStore} that checks its input
 * (a typed error naming the argument and its limit) and words its selectors; thread-safe.
 *
 * <pre>{@code
 * TwinboxAdmin admin = TwinboxAdmin.of(store);          // a JdbcStore, an InMemoryStore …
 * admin.status().failed();
 * admin.failed(10).forEach(e -> log.info("{} {}", e.id(), e.lastError()));
 * admin.retryAggregate("Order", "o-42");
 * admin.parked(ParkedFilter.open().consumer("payment-service")).forEach(p -> log.info("{} {}", p.id(), p.reason()));
 * admin.replayParked(42L, "alice");                     // the consumer replays it within a second or so
 * }</pre>
 */
public final class TwinboxAdmin {
  /** The most events one listing returns. */
  public static final int MAX_LISTED = 10_000;

  /** The longest operator name ({@code by}) an audit record keeps. */
  public static final int MAX_ACTOR = 255;

  private final OutboxAdminStore store;
  private final InboxAdminStore inbox;

  private TwinboxAdmin(OutboxAdminStore store, InboxAdminStore inbox) {
    this.store = store;
    this.inbox = inbox;
  }

  /**
   * The admin of {@code store}; the parked-message operations use its {@link
   * OutboxAdminStore#inboxAdmin()} (a {@code JdbcStore} and an {@code InMemoryStore} have one).
   */
  public static TwinboxAdmin of(OutboxAdminStore store) {
    Objects.requireNonNull(store, "store cannot be null");
    return new TwinboxAdmin(store, store.inboxAdmin().orElse(null));
  }

  /** The admin of an outbox store and, for the parked-message operations, of an inbox store. */
  public static TwinboxAdmin of(OutboxAdminStore store, InboxAdminStore inbox) {
    return new TwinboxAdmin(Objects.requireNonNull(store, "store cannot be null"),
        Objects.requireNonNull(inbox, "inbox cannot be null"));
  }

  /** True when the parked-message operations are available. */
  public boolean hasParkedMessages() {
    return inbox != null;
  }

  // ---- parked inbox messages

  /** The parked messages that pass {@code filter}, oldest first, without payloads. */
  public List<ParkedMessage> parked(ParkedFilter filter) {
    return inbox().parked(Objects.requireNonNull(filter, "filter cannot be null"));
  }

  /**
   * One parked message; its payload only when {@code withPayload} (show it only to whom may see
   * payloads: the admin page's admin token).
   *
   * @throws ParkedMessageException {@code NOT_FOUND}
   */
  public ParkedMessage parkedMessage(long id, boolean withPayload) {
    return inbox().parkedMessage(id, withPayload)
        .orElseThrow(() -> new ParkedMessageException(id, ParkedMessageException.Problem.NOT_FOUND));
  }

  /**
   * Asks the message's consumer to replay it through its handler, in a new transaction that records
   * the message in the inbox (applied at most once): the row becomes {@code REPLAYING} and the
   * running {@link InboxConsumer} of that name ends it {@code REPLAYED}, or {@code PARKED} again with
   * the new reason. Asking again while it is {@code REPLAYING} changes nothing. Returns the row.
   *
   * @param by who asks, for the audit record (1–{@value #MAX_ACTOR} characters)
   * @throws ParkedMessageException {@code NOT_FOUND}, {@code ALREADY_REPLAYED}, {@code ALREADY_DISCARDED},
   *     {@code NOT_REPLAYABLE}; nothing changed
   */
  public ParkedMessage replayParked(long id, String by) {
    return inbox().requestReplay(id, actor(by));
  }

  /** {@link #replayParked(long, String)} for the {@code PARKED} rows that pass {@code filter}; returns how many. */
  public int replayParked(ParkedFilter filter, String by) {
    return inbox().requestReplay(Objects.requireNonNull(filter, "filter cannot be null"), actor(by));
  }

  /**
   * Discards a parked (or replaying) message, with an audit record; the row stays, {@code DISCARDED}.
   *
   * @throws ParkedMessageException {@code NOT_FOUND}, {@code ALREADY_REPLAYED}, {@code ALREADY_DISCARDED}
   */
  public ParkedMessage discardParked(long id, String by) {
    return inbox().discard(id, actor(by));
  }

  /** {@link #discardParked(long, String)} for the rows that pass {@code filter}; returns how many. */
  public int discardParked(ParkedFilter filter, String by) {
    return inbox().discard(Objects.requireNonNull(filter, "filter cannot be null"), actor(by));
  }

  /** Per consumer with open parked messages: counts and the oldest age, for gauges and health. */
  public List<ParkedSummary> parkedSummary() {
    return inbox().parkedSummary();
  }

  /** The audit trail of a parked message, oldest first. */
  public List<ParkedAudit> parkedAudit(long id) {
    return inbox().audit(id);
  }

  private InboxAdminStore inbox() {
    if (inbox == null) {
      throw new UnsupportedOperationException("this admin has no inbox store: use TwinboxAdmin.of(store, inboxStore)");
    }
    return inbox;
  }

  private static String actor(String by) {
    if (by == null || by.isBlank() || by.length() > MAX_ACTOR) {
      throw new IllegalArgumentException("by must be 1–" + MAX_ACTOR + " non-blank characters, was "
          + (by == null ? "null" : by.length() + " characters"));
    }
    if (by.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f || Character.isSurrogate((char) ch))) {
      throw new IllegalArgumentException("by must not hold control characters or unpaired surrogates");
    }
    return by;
  }

  /** Counts, the oldest pending age and the lease owners, on the store's clock. */
  public OutboxStatus status() {
    return store.status();
  }

  /** A health check of this outbox, DOWN once the oldest pending event is older than {@code maxOldestPendingAge}. */
  public Health health(Duration maxOldestPendingAge) {
    return new Health(store, maxOldestPendingAge);
  }

  /** {@link #health(Duration)} with the default threshold ({@link HealthSettings#MAX_OLDEST_PENDING_AGE}). */
  public Health health() {
    return new Health(store);
  }

  /** Up to {@code limit} FAILED or retrying events, oldest first. */
  public List<StoredEvent> failed(int limit) {
    return failed(null, null, null, limit);
  }

  /**
   * Up to {@code limit} (1–{@value #MAX_LISTED}) FAILED or retrying events, oldest first, filtered by
   * exact type, aggregate type and aggregate id ({@code null}: any).
   */
  public List<StoredEvent> failed(String type, String aggregateType, String aggregateId, int limit) {
    return store.troubled(type, aggregateType, aggregateId, listLimit(limit));
  }

  /**
   * Up to {@code limit} (1–{@value #MAX_LISTED}) held aggregates — which event holds each, why
   * (FAILED, or retrying with its last error) and since when — optionally of one aggregate type
   * ({@code null}: any).
   */
  public List<HeldAggregate> heldAggregates(String aggregateType, int limit) {
    return store.heldAggregates(aggregateType, listLimit(limit));
  }

  /**
   * One page of pending events (retrying ones included) in position order, filtered by exact type,
   * aggregate type and aggregate id ({@code null}: any) and by a minimum age; the next page starts
   * after the last position listed. The limit is 1–{@value #MAX_LISTED}.
   */
  public List<StoredEvent> pending(PendingQuery query) {
    Objects.requireNonNull(query, "query cannot be null");
    Objects.requireNonNull(query.olderThan(), "olderThan cannot be null");
    if (query.olderThan().isNegative()) {
      throw new IllegalArgumentException("olderThan must be >= 0, was " + query.olderThan());
    }
    if (query.afterPosition() < 0) {
      throw new IllegalArgumentException("afterPosition must be >= 0, was " + query.afterPosition());
    }
    listLimit(query.limit());
    return store.pending(query);
  }

  /** How many PUBLISHED events are older than {@code age}: what purging them would delete. */
  public long countPublished(Duration age) {
    return store.countPublished(positive(age, "age"));
  }

  /** Puts the FAILED events {@code selector} names back to pending, attempts reset; returns how many. */
  public int retry(EventSelector selector) {
    return store.retry(check(selector));
  }

  public int retryEvent(UUID id) {
    return retry(EventSelector.id(Objects.requireNonNull(id, "id cannot be null")));
  }

  public int retryAggregate(String aggregateType, String aggregateId) {
    return retry(aggregate(aggregateType, aggregateId));
  }

  public int retryAllFailed() {
    return retry(EventSelector.allFailed());
  }

  /** Removes the FAILED events {@code selector} names without publishing them; returns how many. */
  public int skip(EventSelector selector) {
    return store.skip(check(selector));
  }

  public int skipEvent(UUID id) {
    return skip(EventSelector.id(Objects.requireNonNull(id, "id cannot be null")));
  }

  public int skipAggregate(String aggregateType, String aggregateId) {
    return skip(aggregate(aggregateType, aggregateId));
  }

  /** Deletes up to {@code limit} PUBLISHED events older than {@code age} (MARK mode); returns how many. */
  public int purgePublished(Duration age, int limit) {
    return store.purgePublished(positive(age, "age"), positiveLimit(limit));
  }

  /** Forgets up to {@code limit} caller-supplied ids recorded longer ago than {@code age}; returns how many. */
  public int purgeSuppliedIds(Duration age, int limit) {
    return store.purgeSuppliedIds(positive(age, "age"), positiveLimit(limit));
  }

  private static EventSelector aggregate(String aggregateType, String aggregateId) {
    Objects.requireNonNull(aggregateType, "aggregateType cannot be null");
    Objects.requireNonNull(aggregateId, "aggregateId cannot be null");
    return EventSelector.aggregate(aggregateType, aggregateId);
  }

  private static EventSelector check(EventSelector s) {
    Objects.requireNonNull(s, "selector cannot be null");
    if (s.id() == null && s.aggregateType() == null && !s.all()) {
      throw new IllegalArgumentException("selector must name an id, an aggregate, or all failed events");
    }
    return s;
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name + " cannot be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
    return d;
  }

  private static int listLimit(int limit) {
    if (limit < 1 || limit > MAX_LISTED) {
      throw new IllegalArgumentException("limit must be within [1, " + MAX_LISTED + "], was " + limit);
    }
    return limit;
  }

  private static int positiveLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, was " + limit);
    }
    return limit;
  }
}
