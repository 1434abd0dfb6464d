package io.twinbox.internal;

import io.twinbox.Inbox;
import io.twinbox.InboxBatchHandler;
import io.twinbox.InboxHandler;
import io.twinbox.InboxHandlerException;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
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
public final class DefaultInbox implements Inbox {
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
    Objects.requireNonNull(connection, "connection cannot be null");
    Objects.requireNonNull(handler, "handler cannot be null");
    requireTransaction(connection);
    if (messages.isEmpty()) {
      return new Batch(List.of(), List.of(), List.of());
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

    List<InboxOutcome> outcomes = new ArrayList<>(messages.size());
    List<String> reasons = new ArrayList<>(messages.size());
    InboxBatchHandler batchHandler = handler instanceof InboxBatchHandler b ? b : null;
    List<Integer> freshIndexes = new ArrayList<>();
    Set<String> handled = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      InboxMessage m = messages.get(i);
      String hash = messageHashes.get(i);
      boolean first = handled.add(m.id());
      String reference = fresh.contains(m.id()) ? hashes.get(m.id()) : stored.get(m.id());
      String reason = null;
      if (first && fresh.contains(m.id())) {
        if (batchHandler != null) {
          freshIndexes.add(i); // handled together after the loop
        } else {
          handle(connection, handler, m, i);
        }
        outcomes.add(InboxOutcome.PROCESSED);
      } else if (reference != null && !reference.equals(hash)) {
        reason = "message id " + m.id() + " was already received with a different payload (hash "
            + reference.substring(0, 12) + "…, now " + hash.substring(0, 12) + "…)";
        log.error("consumer {}: {}; parked, handler not run", config.consumer(), reason);
        store.park(connection, config.consumer(), m, hash, reason, 0);
        outcomes.add(InboxOutcome.CONFLICT);
      } else {
        outcomes.add(InboxOutcome.DUPLICATE);
      }
      reasons.add(reason);
    }
    if (batchHandler != null && !freshIndexes.isEmpty()) {
      handleAll(connection, batchHandler, messages, freshIndexes);
    }
    return new Batch(List.copyOf(messages), outcomes, reasons);
  }

  private static void handle(Connection connection, InboxHandler handler, InboxMessage m, int index) {
    try {
      handler.handle(connection, m);
    } catch (Exception e) {
      throw handlerFailed(m.id(), index, e);
    }
  }

  private static void handleAll(Connection connection, InboxBatchHandler handler, List<InboxMessage> messages,
      List<Integer> freshIndexes) {
    List<InboxMessage> fresh = new ArrayList<>(freshIndexes.size());
    for (int i : freshIndexes) {
      fresh.add(messages.get(i));
    }
    try {
      handler.handleAll(connection, Collections.unmodifiableList(fresh));
    } catch (Exception e) {
      // With one message the blame is clear; with several, the caller narrows it down.
      int index = fresh.size() == 1 ? freshIndexes.get(0) : -1;
      throw handlerFailed(fresh.get(0).id(), index, e);
    }
  }

  private static InboxHandlerException handlerFailed(String id, int index, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return new InboxHandlerException(id, index, e);
  }

  /** Tells the listener about a message parked outside {@link #processAll} (by the consumer runner). */
  public void reportParked(InboxMessage message, String reason) {
    listener.parked(message, reason);
  }

  /** The outcome of each message of a batch, with the reason where one was parked. */
  public record Batch(List<InboxMessage> messages, List<InboxOutcome> outcomes, List<String> reasons) {
    /** Tells {@code listener} the outcome of every message. */
    public void report(InboxListener listener) {
      for (int i = 0; i < outcomes.size(); i++) {
        InboxMessage m = messages.get(i);
        switch (outcomes.get(i)) {
          case PROCESSED -> listener.processed(m);
          case DUPLICATE -> listener.duplicate(m);
          case CONFLICT, PARKED -> listener.parked(m, reasons.get(i));
        }
      }
    }
  }

  /** Tells this inbox's listener the outcome of every message of a committed batch. */
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
}
