package io.twinbox.testing;

import io.twinbox.contract.StoreFixture;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/** The in-memory store for core's contract suites: the wallet is an effect joined to its transactions. */
final class InMemoryFixture implements StoreFixture {
  private final InMemoryStore store = InMemoryStore.create();
  private final AtomicLong balance = new AtomicLong(1000);

  InMemoryStore memoryStore() {
    return store;
  }

  @Override
  public String name() {
    return "in-memory";
  }

  @Override
  public DataSource dataSource() {
    return store.dataSource();
  }

  @Override
  public OutboxStore store() {
    return store;
  }

  @Override
  public InboxStore inboxStore() {
    return store;
  }

  @Override
  public OutboxStore unmigratedStore() {
    return null;
  }

  @Override
  public DataSource unmigratedDataSource() {
    return null;
  }

  @Override
  public void reset() {
    store.clear();
    balance.set(1000);
  }

  @Override
  public List<OutboxRow> outboxRows() {
    return store.outboxRows().stream().map(r -> new OutboxRow(r.aggregateId(), r.sequence(), r.payload(), r.status(),
        r.attempts(), r.lastError(), r.publishedAt() != null)).toList();
  }

  @Override
  public long lastSequence(String aggregateType, String aggregateId) {
    return store.lastSequence(aggregateType, aggregateId);
  }

  @Override
  public Map<String, String> relayNodes() {
    return store.relayNodes();
  }

  @Override
  public int partitionsOwnedBy(String owner) {
    return store.partitionsOwnedBy(owner);
  }

  @Override
  public List<String> inboxIds() {
    return store.consumers().stream().flatMap(c -> store.inboxRecords(c).stream())
        .map(InMemoryStore.InboxRecord::messageId).toList();
  }

  /** The store judges age on its clock: moving it on ages every record written so far. */
  @Override
  public void ageInboxRecords(Duration age) {
    store.clock().advance(age);
  }

  @Override
  public List<Parked> parked() {
    return store.consumers().stream().flatMap(c -> store.parked(c).stream()
        .map(p -> new Parked(c, p.message().id(), p.reason()))).toList();
  }

  @Override
  public Wallet wallet() {
    return new Wallet() {
      @Override
      public void debit(Connection c, int amount) {
        store.onCommit(c, () -> balance.addAndGet(-amount));
      }

      @Override
      public long balance() {
        return balance.get();
      }
    };
  }

  @Override
  public void close() {}
}
