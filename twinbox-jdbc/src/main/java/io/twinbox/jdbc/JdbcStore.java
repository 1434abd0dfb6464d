package io.twinbox.jdbc;

import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.OutboxStatus;
import io.twinbox.StoreException;
import io.twinbox.StoredEvent;
import io.twinbox.jdbc.internal.Migrator;
import io.twinbox.jdbc.internal.Transactions;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The JDBC {@link OutboxStore}. Writes go through the caller's connection; the relay's work takes
 * short transactions on connections from the given {@link DataSource}, which should be a pool
 * (HikariCP or the application's).
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.builder(dataSource).build();   // dialect detected from the driver
 * store.migrate();                                           // optional: idempotent
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class JdbcStore implements OutboxStore, OutboxAdminStore {
  /** Partitions in the schema shipped with this version (the lease table holds one row each). */
  public static final int PARTITIONS = 64;

  private final DataSource dataSource;
  private final SqlDialect dialect;

  private JdbcStore(DataSource dataSource, SqlDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** The dialect in use. */
  public SqlDialect dialect() {
    return dialect;
  }

  /** The data source the relay's transactions use. */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Creates or upgrades the Twinbox tables from the scripts under {@code db/<dialect>/}. Safe to
   * call from several instances at once (a database lock serialises them) and again later.
   */
  public void migrate() {
    inTransaction("migrate the schema", c -> {
      Migrator.migrate(c, dialect);
      return null;
    });
  }

  /**
   * Turns commit notifications on or off for every writer of this database: with them on, each
   * transaction that writes events wakes the listening relays at commit (PostgreSQL {@code
   * NOTIFY}), so an idle relay publishes within milliseconds instead of within its poll interval.
   * Off by default since schema V3, because {@code NOTIFY} makes all writing transactions commit one
   * at a time (see the README's "Commit notifications"). Relays started afterwards pick the change
   * up; running relays keep what they found at start.
   *
   * @throws UnsupportedOperationException on MariaDB, which has no such signal
   * @throws StoreException when the statement fails (for example, missing privileges)
   */
  public void setCommitNotifications(boolean enabled) {
    inTransaction("switch commit notifications", c -> {
      dialect.setCommitNotifications(c, enabled);
      return null;
    });
  }

  /** True when commit notifications are on (see {@link #setCommitNotifications(boolean)}). */
  public boolean commitNotifications() {
    return inTransaction("read the commit notification setting", dialect::commitNotifications);
  }

  @Override
  public int partitionCount() {
    return PARTITIONS;
  }

  @Override
  public void verifySchema() {
    inTransaction("verify the schema", c -> {
      dialect.verifySchema(c, PARTITIONS);
      return null;
    });
  }

  @Override
  public void append(Connection connection, List<PreparedEvent> events) {
    try {
      dialect.append(connection, events);
    } catch (SQLException e) {
      if (dialect.isDuplicateMessageId(e)) {
        throw new DuplicateMessageIdException(suppliedId(events, e), e);
      }
      throw Transactions.map(dialect, "write outbox events", e);
    }
  }

  /**
   * The id that collided. Only caller-supplied ids can (generated UUIDv7 ids are unique); the
   * duplicate is recognised by SQLSTATE/vendor code, and the server's report (which quotes the key)
   * only serves to name the right one when several ids were supplied.
   */
  private static UUID suppliedId(List<PreparedEvent> events, SQLException e) {
    List<UUID> supplied = events.stream().filter(p -> p.event().id() != null).map(PreparedEvent::id).toList();
    StringBuilder report = new StringBuilder();
    for (SQLException s = e; s != null; s = s.getNextException()) {
      report.append(s.getMessage()).append('\n');
    }
    String text = report.toString().toLowerCase(Locale.ROOT);
    return supplied.stream().filter(id -> text.contains(id.toString())).findFirst()
        .orElse(supplied.isEmpty() ? events.get(0).id() : supplied.get(0));
  }

  @Override
  public int heartbeat(String nodeId, Duration ttl) {
    return inTransaction("record the relay heartbeat", c -> dialect.heartbeat(c, nodeId, ttl));
  }

  @Override
  public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
    return inTransaction("acquire partition leases", c -> dialect.acquire(c, nodeId, max, ttl));
  }

  @Override
  public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl) {
    return inTransaction("renew partition leases", c -> dialect.renew(c, nodeId, leases, ttl));
  }

  @Override
  public void release(String nodeId, Collection<PartitionLease> leases) {
    inTransaction("release partition leases", c -> {
      dialect.release(c, nodeId, leases);
      return null;
    });
  }

  @Override
  public void leave(String nodeId) {
    inTransaction("remove the relay node", c -> {
      dialect.leave(c, nodeId);
      return null;
    });
  }

  @Override
  public List<OutboxMessage> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
    return inTransaction("claim pending events", c -> {
      dialect.prepareClaim(c);
      return dialect.claim(c, nodeId, leases, limit);
    });
  }

  @Override
  public Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
      List<FailedPublish> failed, CompletionMode mode) {
    if (published.isEmpty() && failed.isEmpty()) {
      return new Completion(0, 0, 0);
    }
    return inTransaction("complete published events",
        c -> dialect.complete(c, nodeId, leases, published, failed, mode));
  }

  @Override
  public OutboxStatus status() {
    return inTransaction("read the outbox status", c -> dialect.admin().status(c, PARTITIONS));
  }

  @Override
  public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
    return inTransaction("list failed events", c -> dialect.admin().troubled(c, type, aggregateType, aggregateId, limit));
  }

  @Override
  public int retry(EventSelector selector) {
    return inTransaction("retry failed events", c -> dialect.admin().retry(c, selector));
  }

  @Override
  public int skip(EventSelector selector) {
    return inTransaction("skip failed events", c -> dialect.admin().skip(c, selector));
  }

  @Override
  public int purgePublished(Duration age, int limit) {
    return inTransaction("purge published events", c -> dialect.admin().purgePublished(c, age, limit));
  }

  @Override
  public AutoCloseable onWrite(Runnable callback) {
    return dialect.listen(dataSource, callback);
  }

  private <T> T inTransaction(String what, Transactions.SqlWork<T> work) {
    return Transactions.run(dataSource, dialect, what, c -> {
      dialect.prepareRelayTransaction(c);
      return work.run(c);
    }, dialect::finishRelayTransaction);
  }

  /** Configures a {@link JdbcStore}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private SqlDialect dialect;

    Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
    }

    /** The SQL dialect. Default: detected from the JDBC driver's product name. */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect cannot be null");
      return this;
    }

    /**
     * Connects once: detects the dialect unless one was given, and checks the server's version
     * (PostgreSQL 12+, MariaDB 10.6+), failing with a clear message otherwise.
     */
    public JdbcStore build() {
      try (Connection c = dataSource.getConnection()) {
        SqlDialect d = dialect != null ? dialect : detect(c);
        d.checkVersion(c);
        return new JdbcStore(dataSource, d);
      } catch (SQLException e) {
        throw new StoreException("could not connect to check the database (SQLSTATE " + e.getSQLState() + ")", e);
      }
    }

    private static SqlDialect detect(Connection c) throws SQLException {
      String product = c.getMetaData().getDatabaseProductName();
      String version = c.getMetaData().getDatabaseProductVersion();
      String both = (product + " " + version).toLowerCase(Locale.ROOT);
      if (both.contains("postgresql")) {
        return PostgresDialect.INSTANCE;
      }
      if (both.contains("mariadb")) {
        return MariaDbDialect.INSTANCE;
      }
      throw new IllegalArgumentException("no Twinbox dialect for database '" + product + " " + version
          + "'; supported: PostgreSQL 12+, MariaDB 10.6+ (pass one with dialect(...))");
    }
  }
}
