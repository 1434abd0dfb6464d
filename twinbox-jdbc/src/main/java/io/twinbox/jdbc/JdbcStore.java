package io.twinbox.jdbc;

import io.twinbox.ChangeFeedException;
import io.twinbox.CompletionMode;
import io.twinbox.DuplicateMessageIdException;
import io.twinbox.HeldAggregate;
import io.twinbox.OutboxStatus;
import io.twinbox.StoreException;
import io.twinbox.StoredEvent;
import io.twinbox.jdbc.internal.Migrator;
import io.twinbox.jdbc.internal.SessionLocks;
import io.twinbox.jdbc.internal.PartitionMaintenance;
import io.twinbox.jdbc.internal.Transactions;
import io.twinbox.jdbc.internal.wal.PostgresChangeFeeds;
import io.twinbox.jdbc.internal.wal.ReplicationLogin;
import io.twinbox.spi.ChangeFeed;
import io.twinbox.spi.ChangeFeedStore;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.ChangeFeedStore.TableGroup;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
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
 * <p>On PostgreSQL it is also a {@link ChangeFeedStore}: the WAL relay ({@code RelayMode.WAL}) streams
 * the outbox's inserts through a logical replication slot; {@link #walSlots()} and {@link
 * #dropWalSlot(String)} list and drop Twinbox's slots. On MariaDB the WAL relay is refused.
 *
 * <p>On PostgreSQL 13+ the outbox may be partitioned by time ({@link Builder#partitionedOutbox()}):
 * relays then create partitions ahead on their heartbeat, and {@link #purgePublished} drops whole
 * partitions of PUBLISHED rows (see docs/partitioned-outbox.md).
 *
 * <p>Thread-safe.
 */
public final class JdbcStore implements OutboxStore, OutboxAdminStore, ChangeFeedStore, ExclusiveLock {
  /** Partitions in the schema shipped with this version (the lease table holds one row each). */
  public static final int PARTITIONS = 64;

  /** How often a relay's heartbeat also creates outbox partitions ahead at most (partitioned outbox only). */
  public static final Duration PARTITION_MAINTENANCE_EVERY = PartitionMaintenance.EVERY;

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final PostgresChangeFeeds feeds;
  private final SessionLocks locks;
  private final PartitionLayout partitionLayout;
  private final PartitionMaintenance partitions;

  private JdbcStore(DataSource dataSource, SqlDialect dialect, ReplicationLogin login, PartitionLayout layout) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.locks = new SessionLocks(dataSource, dialect);
    this.partitionLayout = layout;
    this.partitions = dialect.partitionedOutbox()
        .map(p -> new PartitionMaintenance(p.sql(), this::inTransaction)).orElse(null);
    this.feeds = dialect instanceof PostgresDialect ? new PostgresChangeFeeds(dataSource, login, PARTITIONS) : null;
  }

  /** The partition interval and how many partitions are kept ahead. */
  private record PartitionLayout(Duration interval, int ahead) {}

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
   * The database's session-level lock ({@code pg_try_advisory_lock} / {@code GET_LOCK(name, 0)},
   * scoped to this schema or database), held on a connection of its own until released; what keeps
   * {@link io.twinbox.Retention} to one runner across instances.
   */
  @Override
  public Optional<Held> tryLock(String name) {
    return locks.tryLock(Objects.requireNonNull(name, "name cannot be null"));
  }

  /**
   * Creates or upgrades the Twinbox tables from the scripts under {@code db/<dialect>/}. Safe to
   * call from several instances at once (a database lock serialises them) and again later.
   */
  public void migrate() {
    if (partitionLayout == null) {
      run("migrate the schema", c -> Migrator.migrate(c, dialect));
      return;
    }
    SqlDialect.PartitionedOutbox p = dialect.partitionedOutbox().orElseThrow();
    run("migrate the schema (partitioned outbox)", c -> {
      // The layout table first, then the layout, then the conversion that cuts the first partitions.
      Migrator.migrate(c, dialect, p.scripts().subList(0, 1));
      p.sql().setLayout(c, partitionLayout.interval(), partitionLayout.ahead());
      Migrator.migrate(c, dialect, p.scripts());
    });
    maintainPartitions();
  }

  /**
   * True when {@code twinbox_outbox} is partitioned by time (schema script {@code
   * partitioned/P1__outbox_by_time.sql}, see {@link Builder#partitionedOutbox()}), whichever store or
   * tool migrated it.
   */
  public boolean outboxPartitioned() {
    return partitions != null && partitions.partitioned();
  }

  /**
   * Creates the outbox partitions that cover now up to the configured number of intervals ahead,
   * so that a write never lands in the DEFAULT partition; returns how many it created. Relays do
   * this on their heartbeat every {@link #PARTITION_MAINTENANCE_EVERY}, or every half of the time
   * the partitions ahead cover when that is shorter; call it from a maintenance task where no relay
   * runs. Waits at most 500 ms for the outbox's lock (creating a partition takes it briefly) and
   * then gives up until the next call. Does nothing (0) on an outbox that is not partitioned.
   */
  public int maintainPartitions() {
    return partitions == null ? 0 : partitions.createAhead();
  }

  /**
   * Drops the outbox partitions whose whole time range ended more than {@code age} ago and that hold
   * PUBLISHED rows only; returns the rows they held. A partition holding any PENDING or FAILED row
   * (or a pending dead letter) is kept, checked under the outbox's exclusive lock so that no row
   * changes meanwhile. Each partition goes in its own short transaction that waits at most 500 ms
   * for that lock; a busy outbox leaves the partition for the next call.
   *
   * @throws IllegalStateException when the outbox is not partitioned
   */
  public long dropPublishedPartitions(Duration age) {
    Objects.requireNonNull(age, "age cannot be null");
    if (partitions == null) {
      throw new IllegalStateException(dialect.partitionedOutboxUnsupported().orElseThrow());
    }
    return partitions.dropPublished(age);
  }

  /**
   * Turns commit notifications on or off for every writer of this database: with them on, each
   * transaction that writes events wakes the listening relays at commit (PostgreSQL {@code
   * NOTIFY}), so an idle relay publishes within milliseconds instead of within its poll interval.
   * Off by default since schema V3, because {@code NOTIFY} makes all writing transactions commit one
   * at a time (see docs/relay.md, "Commit notifications"). Relays started afterwards pick the change
   * up; running relays keep what they found at start.
   *
   * @throws UnsupportedOperationException on MariaDB, which has no such signal
   * @throws StoreException when the statement fails (for example, missing privileges)
   */
  public void setCommitNotifications(boolean enabled) {
    run("switch commit notifications", c -> dialect.setCommitNotifications(c, enabled));
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
    run("verify the schema", c -> dialect.verifySchema(c, PARTITIONS));
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
    int live = inTransaction("record the relay heartbeat", c -> dialect.heartbeat(c, nodeId, ttl));
    if (partitions != null) {
      partitions.createAheadIfDue();
    }
    return live;
  }

  @Override
  public Optional<Instant> register(String nodeId, String instance, Duration ttl) {
    return inTransaction("register the relay node", c -> dialect.registerNode(c, nodeId, instance, ttl));
  }

  @Override
  public int heartbeat(String nodeId, String instance, Duration ttl) {
    int live = inTransaction("record the relay heartbeat", c -> dialect.heartbeat(c, nodeId, instance, ttl));
    if (partitions != null) {
      partitions.createAheadIfDue();
    }
    return live;
  }

  @Override
  public void leave(String nodeId, String instance) {
    run("remove the relay node", c -> dialect.leave(c, nodeId, instance));
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
    run("release partition leases", c -> dialect.release(c, nodeId, leases));
  }

  @Override
  public void leave(String nodeId) {
    run("remove the relay node", c -> dialect.leave(c, nodeId));
  }

  @Override
  public List<ClaimedRow> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
    // Both statements return the same rows on either layout: a layout changed by another tool is
    // picked up within a minute, without harm meanwhile.
    boolean partitioned = partitions != null && partitions.partitionedLately();
    return inTransaction("claim pending events", c -> {
      dialect.prepareClaim(c);
      return partitioned ? dialect.claimPartitioned(c, nodeId, leases, limit) : dialect.claim(c, nodeId, leases, limit);
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

  /** Dead letters need schema script {@code V8__dead_letters} (PostgreSQL) / {@code V7__dead_letters} (MariaDB). */
  @Override
  public boolean supportsDeadLetters() {
    return true;
  }

  @Override
  public List<DeadLetter> claimDeadLetters(String nodeId, Collection<PartitionLease> leases, int limit) {
    return inTransaction("claim dead letters", c -> dialect.deadLetters().claim(c, nodeId, leases, limit));
  }

  @Override
  public int deadLettersSent(Collection<Long> positions) {
    return inTransaction("mark dead letters sent", c -> dialect.deadLetters().sent(c, positions));
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
  public List<HeldAggregate> heldAggregates(String aggregateType, int limit) {
    return inTransaction("list held aggregates", c -> dialect.admin().heldAggregates(c, aggregateType, limit));
  }

  @Override
  public List<StoredEvent> pending(PendingQuery query) {
    return inTransaction("list pending events", c -> dialect.admin().pending(c, query));
  }

  @Override
  public long countPublished(Duration age) {
    return inTransaction("count published events", c -> dialect.admin().countPublished(c, age));
  }

  @Override
  public int retry(EventSelector selector) {
    return inTransaction("retry failed events", c -> dialect.admin().retry(c, selector));
  }

  @Override
  public int skip(EventSelector selector) {
    return inTransaction("skip failed events", c -> dialect.admin().skip(c, selector));
  }

  /**
   * On a partitioned outbox ({@link #outboxPartitioned()}) this is {@link
   * #dropPublishedPartitions(Duration)}: whole partitions go, never single rows, so {@code limit} does
   * not apply and the count returned (capped at {@code Integer.MAX_VALUE}) may exceed it; PUBLISHED
   * rows in a partition that is not wholly older than {@code age} stay until it is.
   */
  @Override
  public int purgePublished(Duration age, int limit) {
    if (outboxPartitioned()) {
      return (int) Math.min(Integer.MAX_VALUE, dropPublishedPartitions(age));
    }
    return inTransaction("purge published events", c -> dialect.admin().purgePublished(c, age, limit));
  }

  /** Archive mode needs schema script {@code V9__outbox_archive} (PostgreSQL) / {@code V8__outbox_archive} (MariaDB). */
  @Override
  public int archivePublished(Duration age, int limit) {
    if (outboxPartitioned()) {
      throw new UnsupportedOperationException("a partitioned outbox has no archive table: its history leaves by"
          + " partition (docs/partitioned-outbox.md)");
    }
    return inTransaction("archive published events", c -> dialect.admin().archivePublished(c, age, limit));
  }

  /** True unless the outbox is partitioned by time; the archive table comes with V9 (PostgreSQL) / V8 (MariaDB). */
  @Override
  public boolean hasArchive() {
    return !outboxPartitioned();
  }

  @Override
  public long countArchived() {
    return inTransaction("count archived events", c -> dialect.admin().countArchived(c));
  }

  @Override
  public List<StoredEvent> archived(String aggregateType, String aggregateId, int limit) {
    return inTransaction("list archived events", c -> dialect.admin().archived(c, aggregateType, aggregateId, limit));
  }

  @Override
  public int purgeSuppliedIds(Duration age, int limit) {
    return inTransaction("purge the supplied-id ledger", c -> dialect.admin().purgeSuppliedIds(c, age, limit));
  }

  /** The parked messages of this database: a {@link JdbcInboxStore} on it. */
  @Override
  public Optional<io.twinbox.spi.InboxAdminStore> inboxAdmin() {
    return Optional.of(JdbcInboxStore.of(this));
  }

  @Override
  public AutoCloseable onWrite(Runnable callback) {
    return dialect.listen(dataSource, callback);
  }

  @Override
  public Optional<String> changeFeedUnsupported() {
    return feeds != null ? Optional.empty()
        : Optional.of("the " + dialect.name() + " store has no change feed (MariaDB's binlog is not supported yet).");
  }

  @Override
  public String defaultFeedName() {
    return feeds().defaultName();
  }

  @Override
  public void prepareChangeFeed(String name) {
    feeds().prepare(name);
  }

  @Override
  public ChangeFeed openChangeFeed(String name, BooleanSupplier mayConfirm, int maxBufferedChanges) {
    return feeds().open(name, mayConfirm, maxBufferedChanges);
  }

  @Override
  public Map<GroupKey, TableGroup> groupsInTable() {
    return feeds().groupsInTable();
  }

  @Override
  public Set<GroupKey> heldGroups(Collection<GroupKey> groups) {
    return groups.isEmpty() ? Set.of() : feeds().heldGroups(groups);
  }

  @Override
  public Set<Long> unpublished(Collection<Long> positions) {
    return positions.isEmpty() ? Set.of() : feeds().unpublished(positions);
  }

  @Override
  public Set<Long> inProgress(Collection<Long> xids) {
    return xids.isEmpty() ? Set.of() : feeds().inProgress(xids);
  }

  @Override
  public long currentPosition() {
    return feeds().currentPosition();
  }

  /**
   * Twinbox's replication slots on this PostgreSQL server — logical {@code pgoutput} slots whose
   * name starts with {@code twinbox} — with their lag. Empty on a server without any.
   *
   * @throws ChangeFeedException ({@code UNSUPPORTED}) on MariaDB
   */
  public List<WalSlot> walSlots() {
    return feeds().slots();
  }

  /**
   * Drops one of Twinbox's slots and, in this database, its publication: the server stops keeping
   * WAL for it. Events not yet published stay in the outbox table; a polling relay (or a WAL relay,
   * which creates a new slot) publishes them. Returns false when there was no such slot.
   *
   * @throws ChangeFeedException ({@code SLOT_IN_USE}) while a relay streams it: stop the relays first
   * @throws IllegalArgumentException when the name does not start with {@code twinbox}
   */
  public boolean dropWalSlot(String name) {
    return feeds().drop(Objects.requireNonNull(name, "name cannot be null"));
  }

  private PostgresChangeFeeds feeds() {
    if (feeds == null) {
      throw new ChangeFeedException(ChangeFeedException.Problem.UNSUPPORTED, changeFeedUnsupported().orElseThrow());
    }
    return feeds;
  }

  private void run(String what, Transactions.SqlAction work) {
    inTransaction(what, c -> {
      work.run(c);
      return null;
    });
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
    private ReplicationLogin login = ReplicationLogin.fromDataSource();
    private PartitionLayout partitionLayout;

    Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
    }

    /** The SQL dialect. Default: detected from the JDBC driver's product name. */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect cannot be null");
      return this;
    }

    /**
     * The login of the WAL relay's replication connection (PostgreSQL): a pool cannot hand out such
     * a connection, it is opened with {@code replication=database}. Default: the URL and user of the
     * data source's connections, without a password — enough for trust, peer or certificate logins,
     * or a password inside the URL. The password is never logged or shown.
     */
    public Builder replicationLogin(String jdbcUrl, String user, String password) {
      Objects.requireNonNull(jdbcUrl, "jdbcUrl cannot be null");
      if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException("replicationLogin needs a jdbc:postgresql: URL");
      }
      this.login = ReplicationLogin.of(jdbcUrl, user, password);
      return this;
    }

    /**
     * Opts in to the outbox partitioned by time, one partition a day with 3 created ahead: {@link
     * #migrate()} then converts {@code twinbox_outbox} (schema script {@code
     * partitioned/P1__outbox_by_time.sql}, after the regular ones). PostgreSQL 13+ only. See
     * docs/partitioned-outbox.md. Default: not partitioned.
     */
    public Builder partitionedOutbox() {
      return partitionedOutbox(Duration.ofDays(1), 3);
    }

    /**
     * As {@link #partitionedOutbox()}, with partitions of {@code interval} (whole seconds, at least
     * one minute, aligned to multiples of it since the Unix epoch, UTC) and {@code ahead} of them
     * (1 to 1000) created beyond the current one. {@link #migrate()} records both in the database,
     * where every relay's maintenance reads them.
     */
    public Builder partitionedOutbox(Duration interval, int ahead) {
      Objects.requireNonNull(interval, "partition interval cannot be null");
      if (interval.compareTo(Duration.ofMinutes(1)) < 0 || interval.toNanos() % 1_000_000_000L != 0) {
        throw new IllegalArgumentException("partition interval must be whole seconds and >= 1 minute, was " + interval);
      }
      if (ahead < 1 || ahead > 1000) {
        throw new IllegalArgumentException("partitions ahead must be between 1 and 1000, was " + ahead);
      }
      this.partitionLayout = new PartitionLayout(interval, ahead);
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
        if (partitionLayout != null) {
          checkPartitionable(c, d);
        }
        return new JdbcStore(dataSource, d, login, partitionLayout);
      } catch (SQLException e) {
        throw new StoreException("could not connect to check the database (SQLSTATE " + Transactions.sqlState(e) + ")",
            e);
      }
    }

    private static void checkPartitionable(Connection c, SqlDialect d) throws SQLException {
      Optional<String> unsupported = d.partitionedOutboxUnsupported();
      if (unsupported.isPresent()) {
        throw new IllegalArgumentException("partitionedOutbox: " + unsupported.get());
      }
      if (c.getMetaData().getDatabaseMajorVersion() < 13) {
        throw new IllegalArgumentException("partitionedOutbox needs PostgreSQL 13 or newer (row triggers on"
            + " partitioned tables); this server is " + c.getMetaData().getDatabaseProductVersion());
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
