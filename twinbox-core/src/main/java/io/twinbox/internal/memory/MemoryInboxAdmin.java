package io.twinbox.internal.memory;

import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedState;
import io.twinbox.ParkedSummary;
import io.twinbox.StoreException;
import io.twinbox.internal.StorableText;
import io.twinbox.internal.memory.MemoryTransactions.Tx;
import io.twinbox.spi.InboxAdminStore;
import io.twinbox.spi.ReplayStart;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The in-memory store's {@link InboxAdminStore} and the store side of a replay, over {@link
 * MemoryParked}: each operator change runs in a transaction of its own on the store's connections,
 * so it waits for a replay holding the row, as the JDBC store's {@code FOR UPDATE} does.
 */
public final class MemoryInboxAdmin implements InboxAdminStore {
  private final MemoryInbox inbox;
  private final MemoryParked parked;
  private final MemoryTransactions transactions;

  public MemoryInboxAdmin(MemoryInbox inbox, MemoryTransactions transactions) {
    this.inbox = inbox;
    this.parked = inbox.operations();
    this.transactions = transactions;
  }

  @Override
  public List<ParkedMessage> parked(ParkedFilter filter) {
    return own(tx -> parked.list(filter));
  }

  @Override
  public Optional<ParkedMessage> parkedMessage(long id, boolean withPayload) {
    return own(tx -> parked.one(id, withPayload));
  }

  @Override
  public ParkedMessage requestReplay(long id, String by) {
    return own(tx -> {
      Optional<ParkedMessage> m = parked.one(id, false);
      if (m.isPresent() && !m.get().payloadStored()) {
        throw new io.twinbox.ParkedMessageException(id, io.twinbox.ParkedMessageException.Problem.NOT_REPLAYABLE);
      }
      return parked.change(tx, id, ParkedState.REPLAYING, ParkedAudit.REPLAY_REQUESTED, by);
    });
  }

  @Override
  public int requestReplay(ParkedFilter filter, String by) {
    return own(tx -> parked.changeAll(tx, filter, List.of(ParkedState.PARKED), ParkedState.REPLAYING,
        ParkedAudit.REPLAY_REQUESTED, by));
  }

  @Override
  public ParkedMessage discard(long id, String by) {
    return own(tx -> parked.change(tx, id, ParkedState.DISCARDED, ParkedAudit.DISCARDED, by));
  }

  @Override
  public int discard(ParkedFilter filter, String by) {
    return own(tx -> parked.changeAll(tx, filter, List.of(ParkedState.PARKED, ParkedState.REPLAYING),
        ParkedState.DISCARDED, ParkedAudit.DISCARDED, by));
  }

  @Override
  public List<ParkedSummary> parkedSummary() {
    return own(tx -> parked.summary());
  }

  @Override
  public List<ParkedAudit> audit(long id) {
    return own(tx -> parked.audit(id));
  }

  /** As {@code InboxStore.startReplay}, in the consumer's transaction {@code tx}. */
  public ReplayStart startReplay(Tx tx, String consumer, long id) {
    Optional<ParkedMessage> row = parked.lockReplaying(tx, consumer, id);
    if (row.isEmpty()) {
      return ReplayStart.GONE;
    }
    String messageId = row.get().messageId();
    String hash = row.get().payloadHash();
    if (!inbox.record(tx, consumer, Map.of(messageId, hash)).isEmpty()) {
      return ReplayStart.APPLY;
    }
    return hash.equals(inbox.storedHashes(tx, consumer, List.of(messageId)).get(messageId)) ? ReplayStart.APPLY
        : ReplayStart.APPLIED_BEFORE;
  }

  public void finishReplay(Tx tx, String consumer, long id, boolean applied) {
    parked.finishReplay(tx, id, applied, "consumer:" + consumer);
    parked.one(id, false).ifPresent(m -> inbox.clearAttempts(tx, consumer, m.messageId()));
  }

  public boolean replayFailed(String consumer, long id, String reason) {
    return own(tx -> parked.replayFailed(tx, consumer, id, StorableText.reason(reason), "consumer:" + consumer));
  }

  /** {@code work} in a transaction of its own (auto-commit), under the store's monitor. */
  private <T> T own(Function<Tx, T> work) {
    try (Connection c = transactions.getConnection()) {
      return transactions.inTransaction(c, work);
    } catch (SQLException e) {
      throw new StoreException("could not use the in-memory store", e);
    }
  }
}
