package io.twinbox.internal;

import io.twinbox.spi.Printable;
import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.InboxOutcome;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.StoreException;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link Inbox}. Thread-safe: holds no per-call state. */
public final class DefaultInbox implements InboxEngine {
  private static final Logger log = LoggerFactory.getLogger(DefaultInbox.class);

  private final InboxStore store;
  private final InboxConfig config;
  private final InboxListener listener;

  public DefaultInbox(InboxStore store, InboxConfig config, InboxListener listener) {
    this.store = store;
    this.config = config;
    this.listener = listener;
  }

  @Override
  public InboxOutcome process(Connection connection, InboxMessage message, InboxHandler handler) {
    return processAll(connection, List.of(message), handler).get(0);
  }

  @Override
  public List<InboxOutcome> processAll(Connection connection, List<InboxMessage> messages, InboxHandler handler) {
    Batch batch = processQuietly(connection, messages, handler);
    batch.report(listener);
    return batch.outcomes();
  }

  /**
   * What {@link #processAll} does, without telling the listener: for callers that own the
   * transaction and report with {@link #report} only after it committed, so that a batch rolled
   * back and retried is not counted twice.
   */
  public Batch processQuietly(Connection connection, List<InboxMessage> messages, InboxHandler handler) {
    return processQuietly(connection, messages, handler, false);
  }

  /**
   * As {@link #processQuietly(Connection, List, InboxHandler)}; with {@code deferConflicts}, a
   * conflict (a known id with a different payload) is not parked in this transaction: the batch
   * stops before any handler runs and names the first conflict ({@link Batch#conflict()}), so that
   * the caller can roll back, commit the messages before it and park it in a transaction of its own
   * — a park that fails then costs nothing but itself.
   */
  @Override
  public Batch processQuietly(Connection connection, List<InboxMessage> messages, InboxHandler handler,
      boolean deferConflicts) {
    return processQuietly(connection, messages, handler, deferConflicts, true);
  }

  /**
   * As {@link #processQuietly(Connection, List, InboxHandler, boolean)}; without {@code parkOverdue}
   * the ordering guard parks no hold as overdue in this batch (the consumer's grace after it
   * (re)connected: a hold that aged while the broker was away has not waited for a gap).
   */
  @Override
  public Batch processQuietly(Connection connection, List<InboxMessage> messages, InboxHandler handler,
      boolean deferConflicts, boolean parkOverdue) {
    Objects.requireNonNull(connection, "connection cannot be null");
    Objects.requireNonNull(handler, "handler cannot be null");
    requireTransaction(connection);
    if (messages.isEmpty()) {
      return new Batch(List.of(), List.of(), List.of(), null);
    }
    // First occurrence of each id decides; a repeat inside the batch is a duplicate of it.
    Map<String, String> hashes = new LinkedHashMap<>();
    List<String> messageHashes = new ArrayList<>(messages.size());
    for (InboxMessage m : messages) {
      String h = PayloadHash.of(m);
      messageHashes.add(h);
      hashes.putIfAbsent(m.id(), h);
    }
    Set<String> fresh = new HashSet<>(store.record(connection, config.consumer(), hashes));
    List<String> known = hashes.keySet().stream().filter(id -> !fresh.contains(id)).toList();
    Map<String, String> stored = known.isEmpty() ? Map.of() : store.storedHashes(connection, config.consumer(), known);

    // Every outcome is known before any handler runs: conflicts depend on the records only.
    List<InboxOutcome> outcomes = new ArrayList<>(messages.size());
    List<String> reasons = new ArrayList<>(messages.size());
    Set<String> handled = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      InboxMessage m = messages.get(i);
      String hash = messageHashes.get(i);
      boolean first = handled.add(m.id());
      String reference = fresh.contains(m.id()) ? hashes.get(m.id()) : stored.get(m.id());
      String reason = null;
      if (first && fresh.contains(m.id())) {
        outcomes.add(InboxOutcome.PROCESSED);
      } else if (reference == null || !reference.equals(hash)) {
        // No stored hash for a known id: the database took it for another id (MariaDB compares
        // 'x ' equal to 'x') or retention purged it meanwhile. Parked, never skipped unseen.
        reason = reference == null
            ? "message id " + m.id() + " is recorded but its payload hash cannot be read back (the database"
                + " compares it equal to another id, e.g. one without its trailing spaces)"
            : "message id " + m.id() + " was already received with a different payload (hash "
                + reference.substring(0, 12) + "…, now " + hash.substring(0, 12) + "…)";
        if (deferConflicts) {
          return new Batch(List.copyOf(messages), List.of(), List.of(), new Conflict(i, reason));
        }
        outcomes.add(InboxOutcome.CONFLICT);
      } else {
        outcomes.add(InboxOutcome.DUPLICATE);
      }
      reasons.add(reason);
    }

    InboxBatchHandler batchHandler = handler instanceof InboxBatchHandler b ? b : null;
    OrderingGuard guard = guard(connection, messages, outcomes);
    Guarded guarded = new Guarded(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    if (parkOverdue && guard != null && config.ordering() == InboxOrdering.DELTA) {
      guarded.parked().addAll(parkOverdue(store, connection, config, guard));
    }
    // What the handler applies, in order; the index of each in the batch (-1: released from hold).
    List<InboxMessage> apply = new ArrayList<>();
    List<Integer> applyIndexes = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      InboxMessage m = messages.get(i);
      if (outcomes.get(i) == InboxOutcome.PROCESSED) {
        OrderingGuard.Decision d = guard != null && OrderingGuard.guards(m) ? guard.decide(m)
            : OrderingGuard.Decision.APPLY;
        switch (d) {
          case STALE -> outcomes.set(i, InboxOutcome.STALE);
          case HOLD -> {
            guard.hold(m);
            outcomes.set(i, InboxOutcome.HELD);
          }
          case APPLY -> {
            apply.add(m);
            applyIndexes.add(i);
            if (guard != null && OrderingGuard.guards(m)) {
              OrderingGuard.Released r = guard.release(m);
              for (InboxMessage h : r.apply()) {
                apply.add(h);
                applyIndexes.add(-1);
                guarded.released().add(h);
              }
              guarded.stale().addAll(r.stale());
            }
          }
        }
      } else if (outcomes.get(i) == InboxOutcome.CONFLICT) {
        log.error("consumer {}: {}; parked, handler not run", config.consumer(), Printable.of(reasons.get(i)));
        store.park(connection, config.consumer(), m, messageHashes.get(i), reasons.get(i), 0);
      }
    }
    if (batchHandler != null && !apply.isEmpty()) {
      handleAll(connection, batchHandler, apply, applyIndexes);
    } else if (batchHandler == null) {
      for (int k = 0; k < apply.size(); k++) {
        handle(connection, handler, apply.get(k), applyIndexes.get(k));
      }
    }
    if (guard != null) {
      guard.finish();
    }
    return new Batch(List.copyOf(messages), outcomes, reasons, null, guarded);
  }

  /** Held messages parked for their gap per batch at most: the rest wait for the next batch. */
  private static final int OVERDUE_PER_BATCH = 100;

  /**
   * Parks up to {@value #OVERDUE_PER_BATCH} messages the guard held longer than {@code gapTimeout},
   * in the transaction of {@code connection}; returns them, to be reported after the commit.
   */
  static List<Parked> parkOverdue(InboxStore store, Connection connection, InboxConfig config, OrderingGuard guard) {
    List<Parked> parked = new ArrayList<>();
    for (Map.Entry<InboxMessage, String> overdue : guard.overdue(config.gapTimeout(), OVERDUE_PER_BATCH)) {
      log.warn("consumer {}: {}", config.consumer(), overdue.getValue());
      store.park(connection, config.consumer(), overdue.getKey(), PayloadHash.of(overdue.getKey()),
          overdue.getValue(), 0);
      parked.add(new Parked(overdue.getKey(), overdue.getValue()));
    }
    return parked;
  }

  /** The ordering guard for this batch, or {@code null} without one (or with nothing new to guard). */
  private OrderingGuard guard(Connection connection, List<InboxMessage> messages, List<InboxOutcome> outcomes) {
    if (config.ordering() == InboxOrdering.NONE) {
      return null;
    }
    List<InboxMessage> guarded = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (outcomes.get(i) == InboxOutcome.PROCESSED && OrderingGuard.guards(messages.get(i))) {
        guarded.add(messages.get(i));
      }
    }
    return new OrderingGuard(store, connection, config.consumer(), config.ordering(), guarded);
  }

  private static void handle(Connection connection, InboxHandler handler, InboxMessage m, int index) {
    try {
      handler.handle(connection, m);
    } catch (Exception | Error e) {
      throw handlerFailed(m.id(), index, e);
    }
  }

  private static void handleAll(Connection connection, InboxBatchHandler handler, List<InboxMessage> fresh,
      List<Integer> freshIndexes) {
    try {
      handler.handleAll(connection, Collections.unmodifiableList(fresh));
    } catch (Exception | Error e) {
      // With one message the blame is clear; with several, the caller narrows it down.
      int index = fresh.size() == 1 ? freshIndexes.get(0) : -1;
      throw handlerFailed(fresh.get(0).id(), index, e);
    }
  }

  /**
   * What a handler threw, as the message's failure. An {@link Error} counts too (an assertion, a
   * linkage error, a stack overflow on a deep payload: the stack is unwound, the transaction rolls
   * back, the message spends an attempt) — else one message would stop the consumer for good. Only
   * the errors after which the JVM cannot be trusted (out of memory, internal errors) are rethrown.
   */
  private static InboxHandlerException handlerFailed(String id, int index, Throwable e) {
    if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
      throw (VirtualMachineError) e;
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return new InboxHandlerException(id, index, e);
  }

  @Override
  public void reportCommitted(InboxMessage message, java.time.Duration sinceReceived, java.time.Duration sinceEvent) {
    listener.committed(message, sinceReceived, sinceEvent);
  }

  /** Tells the listener about a message parked outside {@link #processAll} (by the consumer runner). */
  @Override
  public void reportParked(InboxMessage message, String reason) {
    listener.parked(message, reason);
  }

  /** Tells the listener that a park could not be stored (the consumer runner retries it). */
  @Override
  public void reportParkFailed(InboxMessage message, String reason) {
    listener.parkFailed(message, reason);
  }

  /** A known id with a different payload, found before any handler ran: the {@code index}-th message. */
  public record Conflict(int index, String reason) {}

  /** A message parked by the ordering guard (its gap lasted too long), with the reason. */
  public record Parked(InboxMessage message, String reason) {}

  /**
   * What the ordering guard did beyond the batch's own messages: held messages it applied, held
   * messages it found stale, held messages it parked.
   */
  public record Guarded(List<InboxMessage> released, List<InboxMessage> stale, List<Parked> parked) {
    static final Guarded NOTHING = new Guarded(List.of(), List.of(), List.of());
  }

  /**
   * The outcome of each message of a batch, with the reason where one was parked; or, when
   * conflicts are deferred and one was found, only that {@link #conflict} (no handler ran).
   */
  public record Batch(List<InboxMessage> messages, List<InboxOutcome> outcomes, List<String> reasons,
      Conflict conflict, Guarded guarded) {
    public Batch(List<InboxMessage> messages, List<InboxOutcome> outcomes, List<String> reasons, Conflict conflict) {
      this(messages, outcomes, reasons, conflict, Guarded.NOTHING);
    }

    /** Tells {@code listener} the outcome of every message. */
    public void report(InboxListener listener) {
      for (int i = 0; i < outcomes.size(); i++) {
        InboxMessage m = messages.get(i);
        switch (outcomes.get(i)) {
          case PROCESSED -> listener.processed(m);
          case DUPLICATE -> listener.duplicate(m);
          case CONFLICT, PARKED -> listener.parked(m, reasons.get(i));
          case STALE -> listener.stale(m);
          case HELD -> listener.held(m);
        }
      }
      guarded.released().forEach(listener::processed);
      guarded.stale().forEach(listener::stale);
      guarded.parked().forEach(p -> listener.parked(p.message(), p.reason()));
    }
  }

  /** Tells this inbox's listener the outcome of every message of a committed batch. */
  @Override
  public void report(Batch batch) {
    batch.report(listener);
  }

  private static void requireTransaction(Connection c) {
    try {
      if (c.getAutoCommit()) {
        throw new NoActiveTransactionException("inbox processing");
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the connection's auto-commit mode", e);
    }
  }

  @Override
  public String consumer() {
    return config.consumer();
  }

  @Override
  public InboxStore store() {
    return store;
  }

  @Override
  public InboxConfig config() {
    return config;
  }

  @Override
  public InboxListener listener() {
    return listener;
  }
}
