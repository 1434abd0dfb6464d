package io.twinbox.testing;

import io.twinbox.CompletionMode;
import io.twinbox.HeldAggregate;
import io.twinbox.InboxMessage;
import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.internal.memory.MemoryAdmin;
import io.twinbox.internal.memory.MemoryInbox;
import io.twinbox.internal.memory.MemoryInboxAdmin;
import io.twinbox.internal.memory.MemoryLeases;
import io.twinbox.internal.memory.MemoryOutbox;
import io.twinbox.internal.memory.MemoryTransactions;
import io.twinbox.internal.memory.Row;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.InboxAdminStore;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import io.twinbox.spi.ReplayStart;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * An outbox, operator and inbox store in memory, for unit tests of code that writes events or
 * consumes messages — no database, no server, started in microseconds. It keeps the rules of the
 * JDBC store (the same contract suites run against both): events are written in a transaction and
 * appear at its commit with gap-free per-aggregate sequences, concurrent writers of one aggregate or
 * one inbox id wait for each other, leases fence completions by epoch, retries back off on the
 * store's {@link TestClock}, FAILED rows hold back their aggregate.
 *
 * <pre>{@code
 * InMemoryStore store = InMemoryStore.create();
 * Outbox outbox = Outbox.builder(store).build();
 * try (Connection c = store.dataSource().getConnection()) {
 *   c.setAutoCommit(false);
 *   outbox.write(c, event);
 *   c.commit();
 * }
 * assertThat(store.outboxRows()).hasSize(1);
 * }</pre>
 *
 * <p>Transactions live on the connections of {@link #dataSource()}: they run no SQL (a statement
 * throws {@code SQLFeatureNotSupportedException}); an effect of the test's own can join the
 * transaction with {@link #onCommit}. Thread-safe.
 */
public final class InMemoryStore implements OutboxStore, OutboxAdminStore, InboxStore {
  /** Partitions by default, as in the JDBC schema. */
  public static final int PARTITIONS = 64;

  /** One outbox row as the store holds it. */
  public record OutboxRow(long position, UUID id, String aggregateType, String aggregateId, long sequence,
      int partition, String type, String payload, String status, int attempts, String lastError, Instant createdAt,
      Instant publishedAt) {}

  /** An inbox record: the message id, its payload hash and when it was recorded. */
  public record InboxRecord(String messageId, String payloadHash, Instant receivedAt) {}

  /** A parked message with its reason. */
  public record ParkedMessage(InboxMessage message, String payloadHash, String reason, int attempts) {}

  private final TestClock clock;
  private final int partitions;
  private final MemoryTransactions transactions = new MemoryTransactions();
  private final MemoryLeases leases;
  private final MemoryOutbox outbox;
  private final MemoryAdmin admin;
  private final MemoryInbox inbox;
  private final MemoryInboxAdmin parkedAdmin;

  private InMemoryStore(TestClock clock, int partitions) {
    this.clock = clock;
    this.partitions = partitions;
    this.leases = new MemoryLeases(clock, partitions);
    this.outbox = new MemoryOutbox(clock, partitions, transactions);
    this.admin = new MemoryAdmin(clock, partitions, outbox, leases);
    this.inbox = new MemoryInbox(clock, transactions);
    this.parkedAdmin = new MemoryInboxAdmin(inbox, transactions);
  }

  /** A store on a {@link TestClock#ticking()} clock with {@value #PARTITIONS} partitions. */
  public static InMemoryStore create() {
    return create(TestClock.ticking());
  }

  /** A store judging time on {@code clock}. */
  public static InMemoryStore create(TestClock clock) {
    return create(clock, PARTITIONS);
  }

  /** A store judging time on {@code clock}, with {@code partitions} partitions (1–1024). */
  public static InMemoryStore create(TestClock clock, int partitions) {
    if (partitions < 1 || partitions > 1024) {
      throw new IllegalArgumentException("partitions must be 1–1024, was " + partitions);
    }
    return new InMemoryStore(Objects.requireNonNull(clock, "clock cannot be null"), partitions);
  }

  /** The connections whose transactions this store's writes, records and parks join. */
  public DataSource dataSource() {
    return transactions;
  }

  /**
   * How long a transaction waits for a row lock another transaction holds (the same aggregate's
   * counter, the same inbox id) before it fails like a database deadlock, SQLSTATE 40P01. Default
   * 10 s; zero fails at once, for tests that run transactions one at a time and must not wait.
   *
   * @throws IllegalArgumentException when negative
   */
  public InMemoryStore lockTimeout(Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("lockTimeout must not be negative, was " + timeout);
    }
    transactions.lockTimeout(timeout.toMillis());
    return this;
  }

    /** The clock the store judges time on. */
  public TestClock clock() {
    return clock;
  }

  /** Runs {@code action} when the transaction on {@code c} commits; dropped if it rolls back. */
  public void onCommit(Connection c, Runnable action) {
    Objects.requireNonNull(action, "action cannot be null");
    transactions.run(c, tx -> tx.onCommit(action));
  }

  /**
   * Runs {@code action} after the transaction on {@code c} has committed, outside the store's
   * lock; dropped if it rolls back. An exception it throws reaches the caller of {@code commit()}
   * with the transaction committed: how a test plays a commit whose reply was lost (the outcome is
   * unknown to the committer).
   */
  public void afterCommit(Connection c, Runnable action) {
    Objects.requireNonNull(action, "action cannot be null");
    transactions.run(c, tx -> tx.afterCommit(action));
  }

    /** Forgets everything: events, counters, leases, nodes, inbox records, parked messages. */
  public void clear() {
    transactions.sync(() -> {
      outbox.clear();
      leases.clear();
      inbox.clear();
    });
  }

  // ---- OutboxStore

  @Override
  public int partitionCount() {
    return partitions;
  }

  @Override
  public void verifySchema() {}

  @Override
  public void append(Connection connection, List<PreparedEvent> events) {
    transactions.run(connection, tx -> outbox.append(tx, events));
  }

  @Override
  public int heartbeat(String nodeId, Duration ttl) {
    return sync(() -> leases.heartbeat(nodeId, ttl));
  }

  @Override
  public Optional<Instant> register(String nodeId, String instance, Duration ttl) {
    return sync(() -> leases.register(nodeId, instance, ttl));
  }

  @Override
  public int heartbeat(String nodeId, String instance, Duration ttl) {
    return sync(() -> leases.heartbeat(nodeId, instance, ttl));
  }

  @Override
  public void leave(String nodeId, String instance) {
    transactions.sync(() -> leases.leave(nodeId, instance));
  }

  @Override
  public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
    return sync(() -> leases.acquire(nodeId, max, ttl));
  }

  @Override
  public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> held, Duration ttl) {
    return sync(() -> leases.renew(nodeId, held, ttl));
  }

  @Override
  public void release(String nodeId, Collection<PartitionLease> held) {
    transactions.sync(() -> leases.release(nodeId, held));
  }

  @Override
  public void leave(String nodeId) {
    transactions.sync(() -> leases.leave(nodeId));
  }

  @Override
  public List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> held, int limit) {
    return sync(() -> outbox.claim(nodeId, leases, held, limit));
  }

  @Override
  public Completion complete(String nodeId, Collection<PartitionLease> held, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode) {
    return sync(() -> outbox.complete(nodeId, leases, held, published, failed, mode));
  }

  @Override
  public AutoCloseable onWrite(Runnable callback) {
    return sync(() -> outbox.onWrite(callback));
  }

  @Override
  public boolean supportsDeadLetters() {
    return true;
  }

  @Override
  public List<DeadLetter> claimDeadLetters(String nodeId, Collection<PartitionLease> held, int limit) {
    return sync(() -> outbox.claimDeadLetters(nodeId, leases, held, limit));
  }

  @Override
  public int deadLettersSent(Collection<Long> positions) {
    return sync(() -> outbox.deadLettersSent(positions));
  }

  // ---- OutboxAdminStore

  @Override
  public OutboxStatus status() {
    return sync(admin::status);
  }

  @Override
  public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
    return sync(() -> admin.troubled(type, aggregateType, aggregateId, limit));
  }

  @Override
  public List<HeldAggregate> heldAggregates(String aggregateType, int limit) {
    return sync(() -> admin.heldAggregates(aggregateType, limit));
  }

  @Override
  public List<StoredEvent> pending(PendingQuery query) {
    return sync(() -> admin.pending(query));
  }

  @Override
  public long countPublished(Duration age) {
    return sync(() -> admin.countPublished(age));
  }

  @Override
  public int retry(EventSelector selector) {
    return sync(() -> admin.retry(selector));
  }

  @Override
  public int skip(EventSelector selector) {
    return sync(() -> admin.skip(selector));
  }

  @Override
  public int purgePublished(Duration age, int limit) {
    return sync(() -> admin.purgePublished(age, limit));
  }

  @Override
  public int purgeSuppliedIds(Duration age, int limit) {
    return sync(() -> admin.purgeSuppliedIds(age, limit));
  }

  // ---- InboxStore

  @Override
  public List<String> record(Connection c, String consumer, Map<String, String> hashes) {
    return transactions.inTransaction(c, tx -> inbox.record(tx, consumer, hashes));
  }

  @Override
  public Map<String, String> storedHashes(Connection c, String consumer, List<String> ids) {
    return transactions.inTransaction(c, tx -> inbox.storedHashes(tx, consumer, ids));
  }

  @Override
  public void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason,
      int attempts) {
    transactions.run(c, tx -> inbox.park(tx, consumer, message, payloadHash, reason, attempts));
  }

  @Override
  public int recordAttempt(String consumer, String messageId, String error) {
    return sync(() -> inbox.recordAttempt(consumer, messageId, error));
  }

  @Override
  public Map<String, Integer> storedAttempts(Connection c, String consumer, List<String> ids) {
    return transactions.inTransaction(c, tx -> inbox.storedAttempts(consumer, ids));
  }

  /** All counters in one step, as the JDBC store does in one transaction. */
  @Override
  public Map<String, Integer> recordAttempts(String consumer, List<String> ids, String error) {
    return sync(() -> {
      Map<String, Integer> counts = new java.util.LinkedHashMap<>();
      for (String id : ids) {
        counts.put(id, inbox.recordAttempt(consumer, id, error));
      }
      return counts;
    });
  }

  @Override
  public void clearAttempts(Connection c, String consumer, String messageId) {
    transactions.run(c, tx -> inbox.clearAttempts(tx, consumer, messageId));
  }

  @Override
  public int purgeProcessed(Duration age, int limit) {
    return sync(() -> inbox.purgeProcessed(age, limit));
  }

  @Override
  public boolean supportsOrdering() {
    return true;
  }

  @Override
  public long lastSequence(Connection c, String consumer, String aggregateType, String aggregateId) {
    return transactions.inTransaction(c, tx -> inbox.lastSequence(tx, consumer, aggregateType, aggregateId));
  }

  @Override
  public void setLastSequence(Connection c, String consumer, String aggregateType, String aggregateId,
      long sequence) {
    transactions.run(c, tx -> inbox.setLastSequence(tx, consumer, aggregateType, aggregateId, sequence));
  }

  @Override
  public void hold(Connection c, String consumer, InboxMessage message) {
    transactions.run(c, tx -> inbox.hold(tx, consumer, message));
  }

  @Override
  public List<InboxMessage> held(Connection c, String consumer, String aggregateType, String aggregateId) {
    return transactions.inTransaction(c, tx -> inbox.held(tx, consumer, aggregateType, aggregateId));
  }

  @Override
  public void release(Connection c, String consumer, String messageId) {
    releaseHeld(c, consumer, messageId);
  }

  @Override
  public boolean releaseHeld(Connection c, String consumer, String messageId) {
    return transactions.inTransaction(c, tx -> inbox.release(tx, consumer, messageId));
  }

  @Override
  public List<InboxMessage> heldLongerThan(Connection c, String consumer, Duration age, int limit) {
    return transactions.inTransaction(c, tx -> inbox.heldLongerThan(tx, consumer, age, limit));
  }

  // ---- replay of parked messages, and their operator side (inboxAdmin())

  @Override
  public boolean supportsReplay() {
    return true;
  }

  @Override
  public List<io.twinbox.ParkedMessage> replayRequests(String consumer, int limit) {
    return sync(() -> inbox.operations().replayRequests(consumer, limit));
  }

  @Override
  public ReplayStart startReplay(Connection c, String consumer, long parkedId) {
    return transactions.inTransaction(c, tx -> parkedAdmin.startReplay(tx, consumer, parkedId));
  }

  @Override
  public void finishReplay(Connection c, String consumer, long parkedId, boolean applied) {
    transactions.run(c, tx -> parkedAdmin.finishReplay(tx, consumer, parkedId, applied));
  }

  @Override
  public boolean replayFailed(String consumer, long parkedId, String reason) {
    return parkedAdmin.replayFailed(consumer, parkedId, reason);
  }

  /** The parked messages' operator side, for {@link io.twinbox.TwinboxAdmin#of(OutboxAdminStore)}. */
  @Override
  public Optional<InboxAdminStore> inboxAdmin() {
    return Optional.of(parkedAdmin);
  }

  // ---- what a test looks at

  /** The committed outbox rows, in position order. */
  public List<OutboxRow> outboxRows() {
    return sync(() -> outbox.rows().stream().map(InMemoryStore::row).toList());
  }

  private static OutboxRow row(Row r) {
    return new OutboxRow(r.position(), r.id(), r.aggregateType(), r.aggregateId(), r.sequence(), r.partition(),
        r.type(), r.payload(), r.status().name(), r.attempts(), r.lastError(), r.createdAt(), r.publishedAt());
  }

  /** The last sequence handed out for an aggregate (0 when none was). */
  public long lastSequence(String aggregateType, String aggregateId) {
    return sync(() -> outbox.lastSequence(aggregateType, aggregateId));
  }

  /** Relay node id → the instance registered under it. */
  public Map<String, String> relayNodes() {
    return sync(leases::nodes);
  }

  /** How many partitions name {@code owner} as their holder, whether the lease ran out or not. */
  public int partitionsOwnedBy(String owner) {
    return sync(() -> leases.ownedBy(owner));
  }

  /** The node whose lease on {@code partition} has not run out on the store's clock, if any. */
  public Optional<String> liveLeaseHolder(int partition) {
    if (partition < 0 || partition >= partitions) {
      throw new IllegalArgumentException("partition must be within [0, " + partitions + "), was " + partition);
    }
    return sync(() -> Optional.ofNullable(leases.liveHolder(partition)));
  }

    /** The consumers with inbox records or parked messages, in the order they first had one. */
  public List<String> consumers() {
    return sync(inbox::consumers);
  }

  /** The committed inbox records of {@code consumer}, oldest first. */
  public List<InboxRecord> inboxRecords(String consumer) {
    return sync(() -> inbox.records(consumer).stream()
        .map(r -> new InboxRecord(r.messageId(), r.payloadHash(), r.receivedAt())).toList());
  }

  /** The parked messages of {@code consumer}, in the order they were parked. */
  public List<ParkedMessage> parked(String consumer) {
    return sync(() -> inbox.parked(consumer).stream()
        .map(p -> new ParkedMessage(p.message(), p.payloadHash(), p.reason(), p.attempts())).toList());
  }

  /** Message id → persisted failed attempts, of {@code consumer}. */
  public Map<String, Integer> attempts(String consumer) {
    return sync(() -> inbox.attempts(consumer));
  }

  /**
   * Makes the stored event {@code id} one the relay cannot decode, as a row written by plain SQL can
   * be: claims return it as an {@code UndecodableRow} whose reason is {@code "undecodable row: "} and
   * {@code problem}, and the relay fails it at once. For tests of FAILED handling.
   *
   * @throws IllegalArgumentException when no such event is stored
   */
  public void spoil(UUID id, String problem) {
    if (!sync(() -> outbox.spoil(id, problem))) {
      throw new IllegalArgumentException("no stored event " + id);
    }
  }

  private <T> T sync(Supplier<T> work) {
    synchronized (transactions) {
      return work.get();
    }
  }
}
