package io.twinbox.internal;

import io.twinbox.Inbox;
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
    Objects.requireNonNull(connection, "connection cannot be null");
    Objects.requireNonNull(handler, "handler cannot be null");
    requireTransaction(connection);
    if (messages.isEmpty()) {
      return List.of();
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
    Set<String> handled = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      InboxMessage m = messages.get(i);
      String hash = messageHashes.get(i);
      boolean first = handled.add(m.id());
      String reference = fresh.contains(m.id()) ? hashes.get(m.id()) : stored.get(m.id());
      if (first && fresh.contains(m.id())) {
        try {
          handler.handle(connection, m);
        } catch (Exception e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          throw new InboxHandlerException(m.id(), i, e);
        }
        outcomes.add(InboxOutcome.PROCESSED);
        listener.processed(m);
      } else if (reference != null && !reference.equals(hash)) {
        String reason = "message id " + m.id() + " was already received with a different payload (hash "
            + reference.substring(0, 12) + "…, now " + hash.substring(0, 12) + "…)";
        log.error("consumer {}: {}; parked, handler not run", config.consumer(), reason);
        store.park(connection, config.consumer(), m, hash, reason, 0);
        outcomes.add(InboxOutcome.CONFLICT);
        listener.parked(m, reason);
      } else {
        outcomes.add(InboxOutcome.DUPLICATE);
        listener.duplicate(m);
      }
    }
    return outcomes;
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
