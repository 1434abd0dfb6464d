package io.twinbox.contract;

import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the store contract suites need from a store: a migrated store whose connections carry the
 * transactions, and a look at what it holds that does not depend on how it holds it (SQL tables or
 * memory). Implemented once per store: {@code InMemoryFixture} in core's tests, {@code JdbcFixture}
 * in twinbox-jdbc's.
 */
public interface StoreFixture extends AutoCloseable {

  /** A name for messages, e.g. {@code PostgreSQL}. */
  String name();

  /** Connections whose transactions the store's writes and inbox records join. */
  DataSource dataSource();

  /** The outbox store on {@link #dataSource()}, migrated. */
  OutboxStore store();

  /** The operator's view of {@link #store()}; by default the store itself. */
  default OutboxAdminStore adminStore() {
    return (OutboxAdminStore) store();
  }

  /** The inbox store on {@link #dataSource()}. */
  InboxStore inboxStore();

  /** A store whose schema was never migrated; {@code null} for a store without a schema (in memory). */
  OutboxStore unmigratedStore();

  /** Connections to {@link #unmigratedStore()}'s empty database; {@code null} when it is. */
  DataSource unmigratedDataSource();

  /** Empties the outbox, the counters, the inbox, the relay nodes; frees every lease; wallet back to 1000. */
  void reset() throws Exception;

  /** The committed outbox rows, in position order. */
  List<OutboxRow> outboxRows() throws Exception;

  /** The last sequence handed out for the aggregate; 0 when none was. */
  long lastSequence(String aggregateType, String aggregateId) throws Exception;

  /** Relay node id → the instance registered under it. */
  Map<String, String> relayNodes() throws Exception;

  /** Partitions whose lease names {@code owner}, whether it ran out or not. */
  int partitionsOwnedBy(String owner) throws Exception;

  /** The message ids of every inbox record, of every consumer. */
  List<String> inboxIds() throws Exception;

  /** Makes every inbox record stored so far older by {@code age}. */
  void ageInboxRecords(Duration age) throws Exception;

  /** The parked messages of every consumer, in the order they were parked. */
  List<Parked> parked() throws Exception;

  /** A business effect in the consumer's transaction: one wallet whose balance the tests debit. */
  Wallet wallet();

  /** Drops the databases. */
  @Override
  void close();

  /** One outbox row, as the contracts compare them. */
  record OutboxRow(String aggregateId, long sequence, String payload, String status, int attempts, String lastError,
      boolean publishedAtSet) {
    /** {@code status|attempts|last_error}, as the contracts compare them. */
    public String state() {
      return status + "|" + attempts + "|" + lastError;
    }
  }

  /** A parked message: the consumer, the id and the reason it was parked for. */
  record Parked(String consumer, String messageId, String reason) {}

  /** A transactional effect: the debit commits and rolls back with the connection's transaction. */
  interface Wallet {
    void debit(Connection c, int amount) throws Exception;

    /** The committed balance. */
    long balance() throws Exception;
  }
}
