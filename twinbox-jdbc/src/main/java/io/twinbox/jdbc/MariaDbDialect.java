package io.twinbox.jdbc;

import io.twinbox.CompletionMode;
import io.twinbox.spi.ParkedRow;
import io.twinbox.spi.StoreRules;
import io.twinbox.jdbc.internal.AdminSql;
import io.twinbox.jdbc.internal.DeadLetterSql;
import io.twinbox.jdbc.internal.InboxOrderSql;
import io.twinbox.jdbc.internal.InboxSql;
import io.twinbox.jdbc.internal.NodeSql;
import io.twinbox.jdbc.internal.ParkedSql;
import io.twinbox.jdbc.internal.Rows;
import io.twinbox.jdbc.internal.SchemaCheck;
import io.twinbox.jdbc.internal.ScriptSplitter;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MariaDB 10.6+ ({@code FOR UPDATE SKIP LOCKED}, {@code INSERT … RETURNING}). Holds all of
 * Twinbox's MariaDB SQL. Times are UTC {@code DATETIME(6)} judged on the server's clock ({@code
 * UTC_TIMESTAMP(6)}). There is no commit notification: the relay polls adaptively. Lists are bound
 * as {@code IN (?, …)} (no array type). Errors are recognised by SQLSTATE and vendor code.
 * Stateless and thread-safe: use {@link #INSTANCE}.
 *
 * <p>MySQL 8 is not supported by this dialect: it lacks {@code INSERT … RETURNING}, which the
 * inbox's set-based duplicate check relies on.
 */
public final class MariaDbDialect implements SqlDialect {
  public static final MariaDbDialect INSTANCE = new MariaDbDialect();

  /** The oldest MariaDB with {@code SKIP LOCKED}. */
  public static final int MIN_MAJOR = 10;
  public static final int MIN_MINOR = 6;

  private static final int ER_DUP_ENTRY = 1062;
  private static final int ER_NO_SUCH_TABLE = 1146;
  private static final int ER_BAD_FIELD_ERROR = 1054;
  private static final int ER_LOCK_DEADLOCK = 1213;
  private static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  private static final String NEXT_SEQUENCE = """
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, LAST_INSERT_ID(1))
      ON DUPLICATE KEY UPDATE last_sequence = LAST_INSERT_ID(last_sequence + 1)""";

  private static final String INSERT_EVENT = """
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      VALUES (?, ?, ?, %s, ?, ?, ?, ?, ?, ?, ?, ?)""";

  private static final String VERIFY = """
      SELECT (SELECT COUNT(*) FROM twinbox_relay_lease),
             (SELECT COUNT(*) FROM information_schema.columns
               WHERE table_schema = DATABASE() AND table_name = 'twinbox_outbox'
                 AND column_name IN ('partition_no', 'sequence', 'next_attempt_at', 'traceparent'))""";

  private static final String HEARTBEAT = """
      INSERT INTO twinbox_relay_node (node_id, heartbeat_at) VALUES (?, UTC_TIMESTAMP(6))
      ON DUPLICATE KEY UPDATE heartbeat_at = UTC_TIMESTAMP(6)""";

  /** Beats only while the row is this instance's (or new); the row's instance is read back after. */
  private static final String HEARTBEAT_INSTANCE = """
      INSERT INTO twinbox_relay_node (node_id, instance, heartbeat_at) VALUES (?, ?, UTC_TIMESTAMP(6))
      ON DUPLICATE KEY UPDATE heartbeat_at = IF(instance <=> VALUES(instance), VALUES(heartbeat_at), heartbeat_at)""";

  /*
   * Takes the row when it is new, already this instance's, or its heartbeat lapsed. The three
   * assignments share one condition; "instance" is assigned first, so the condition reads the same
   * whether MariaDB evaluates the assignments left to right (the default) or simultaneously
   * (sql_mode SIMULTANEOUS_ASSIGNMENT): after a take-over the new instance matches, otherwise the
   * old values are still in place.
   */
  private static final String TAKE_NODE = "(instance <=> VALUES(instance) OR heartbeat_at <= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)";

  private static final String REGISTER_NODE = """
      INSERT INTO twinbox_relay_node (node_id, instance, heartbeat_at, started_at)
      VALUES (?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
      ON DUPLICATE KEY UPDATE instance = IF(%1$s, VALUES(instance), instance),
                              heartbeat_at = IF(%1$s, VALUES(heartbeat_at), heartbeat_at),
                              started_at = IF(%1$s, VALUES(started_at), started_at)""".formatted(TAKE_NODE);

  private static final String NODE_HOLDER = "SELECT instance, heartbeat_at FROM twinbox_relay_node WHERE node_id = ?";

  /*
   * InnoDB locks every row that a locking statement's index scan touches, matching or not. A DELETE
   * filtered on heartbeat_at (no index) would lock every node's row and deadlock with the other
   * relays' heartbeats; so the dead are read plainly first and deleted by primary key. FORCE INDEX:
   * on a small or fresh table the optimizer prefers a full scan even for a key list, and that scan
   * would lock every row again (see the completions below).
   */
  private static final String DEAD_NODES =
      "SELECT node_id FROM twinbox_relay_node WHERE heartbeat_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND";

  private static final String FORGET_DEAD_NODES = """
      DELETE n FROM twinbox_relay_node AS n FORCE INDEX (PRIMARY)
       WHERE n.node_id IN (%s) AND heartbeat_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

  private static final String LIVE_NODES =
      "SELECT COUNT(*) FROM twinbox_relay_node WHERE heartbeat_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND";

  /*
   * Free leases are read plainly, then locked by primary key, as many keys as still wanted per
   * round: a locking read with ORDER BY RAND() would lock all 64 rows it sorts, and one with a
   * LIMIT over a longer key list still locks rows past the limit (InnoDB reads ahead). The plain
   * read also lists rows another relay is taking right now (not committed yet); SKIP LOCKED passes
   * over those and the next round asks for other candidates.
   */
  private static final String FREE_LEASES =
      "SELECT partition_no FROM twinbox_relay_lease WHERE owner IS NULL OR lease_until < UTC_TIMESTAMP(6)";

  private static final String LOCK_FREE_LEASES = """
      SELECT partition_no FROM twinbox_relay_lease FORCE INDEX (PRIMARY)
       WHERE partition_no IN (%s) AND (owner IS NULL OR lease_until < UTC_TIMESTAMP(6))
       FOR UPDATE SKIP LOCKED""";

  private static final String TAKE_LEASES = """
      UPDATE twinbox_relay_lease FORCE INDEX (PRIMARY)
         SET owner = ?, epoch = epoch + 1, lease_until = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
             acquired_at = UTC_TIMESTAMP(6)
       WHERE partition_no IN (%s) AND (owner IS NULL OR lease_until < UTC_TIMESTAMP(6))""";

  private static final String OWNED_LEASES =
      "SELECT partition_no, epoch FROM twinbox_relay_lease WHERE owner = ? AND partition_no IN (%s)";

  private static final String RENEW = """
      UPDATE twinbox_relay_lease FORCE INDEX (PRIMARY) SET lease_until = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
       WHERE partition_no IN (%s) AND owner = ? AND (partition_no, epoch) IN (%s)""";

  private static final String HELD = """
      SELECT partition_no, epoch FROM twinbox_relay_lease FORCE INDEX (PRIMARY)
       WHERE partition_no IN (%s) AND owner = ? AND (partition_no, epoch) IN (%s)""";

  private static final String RELEASE = """
      UPDATE twinbox_relay_lease FORCE INDEX (PRIMARY) SET owner = NULL, lease_until = '1970-01-01 00:00:00'
       WHERE partition_no IN (%s) AND owner = ? AND (partition_no, epoch) IN (%s)""";

  /** As PostgreSQL's claim: due pending rows of held partitions, skipping held-back aggregates. */
  private static final String CLAIM = """
      SELECT o.position, o.id, o.aggregate_type, o.aggregate_id, o.sequence, o.partition_no, o.type, o.version,
             o.payload, o.headers, o.correlation_id, o.causation_id, o.traceparent,
             o.occurred_at, o.created_at, o.attempts
        FROM twinbox_outbox o FORCE INDEX (twinbox_outbox_pending)
       WHERE o.status = 'PENDING'
         AND o.next_attempt_at <= UTC_TIMESTAMP(6)
         AND o.partition_no IN (%s)
         AND o.partition_no IN (SELECT l.partition_no FROM twinbox_relay_lease l
                                 WHERE l.owner = ? AND l.lease_until > UTC_TIMESTAMP(6))
         AND (o.aggregate_id IS NULL OR NOT EXISTS (
               SELECT 1 FROM twinbox_outbox h
                WHERE h.aggregate_type = o.aggregate_type AND h.aggregate_id = o.aggregate_id
                  AND h.status IN ('FAILED', 'PENDING') AND h.sequence < o.sequence
                  AND (h.status = 'FAILED' OR (h.attempts > 0 AND h.next_attempt_at > UTC_TIMESTAMP(6)))))
       ORDER BY o.position
       LIMIT ?""";

  /*
   * The lease statements below reach their rows by primary key: a (partition_no, epoch) pair test
   * alone is not index-usable, and InnoDB would lock every lease row of its full scan. FORCE INDEX
   * as for the node rows above: 64 rows are few enough for the optimizer to choose a scan.
   */
  private static final String LOCK_HELD_LEASES = """
      SELECT partition_no FROM twinbox_relay_lease FORCE INDEX (PRIMARY)
       WHERE partition_no IN (%s) AND owner = ? AND (partition_no, epoch) IN (%s) FOR UPDATE""";

  /*
   * Completions must reach their rows by primary key. A locking statement that scans (as InnoDB
   * does on a fresh table whose statistics are empty) stops at every row it meets that another
   * transaction holds — a writer's uncommitted event — and the relay stalls behind it. Hence FORCE
   * INDEX (PRIMARY), which single-table DELETE does not accept but the multi-table form does.
   */
  private static final String DELETE_PUBLISHED = """
      DELETE o FROM twinbox_outbox AS o FORCE INDEX (PRIMARY)
       WHERE o.position IN (%s) AND o.partition_no IN (%s) AND o.status = 'PENDING'""";

  private static final String MARK_PUBLISHED = """
      UPDATE twinbox_outbox FORCE INDEX (PRIMARY) SET status = 'PUBLISHED', published_at = UTC_TIMESTAMP(6)
       WHERE position IN (%s) AND partition_no IN (%s) AND status = 'PENDING'""";

  private static final String RECORD_FAILURE = """
      UPDATE twinbox_outbox FORCE INDEX (PRIMARY)
         SET attempts = attempts + 1, status = ?, next_attempt_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
             last_error = ?
       WHERE position = ? AND partition_no IN (%s) AND status = 'PENDING'""";

  /**
   * {@link #RECORD_FAILURE} of a relay with dead letters: also the failure times (the first since the
   * attempts were last reset), and a FAILED row's dead letter PENDING, in the same update. MariaDB
   * assigns left to right with the new values of columns already set, so the CASEs read the row
   * before {@code attempts} and {@code status} change by coming first.
   */
  private static final String RECORD_FAILURE_DEAD_LETTERS = """
      UPDATE twinbox_outbox FORCE INDEX (PRIMARY)
         SET first_failed_at = CASE WHEN attempts = 0 OR first_failed_at IS NULL THEN UTC_TIMESTAMP(6)
                                    ELSE first_failed_at END,
             last_failed_at = UTC_TIMESTAMP(6),
             dead_letter = CASE WHEN ? = 'FAILED' THEN 'PENDING' ELSE dead_letter END,
             attempts = attempts + 1, status = ?, next_attempt_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
             last_error = ?
       WHERE position = ? AND partition_no IN (%s) AND status = 'PENDING'""";

  private static final DeadLetterSql DEAD_LETTERS = new DeadLetterSql(new DeadLetterSql.Fragments(
      "UTC_TIMESTAMP(6)", "o.payload, o.headers", true, false));

  private static final String INBOX_RECORD = """
      INSERT IGNORE INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES %s RETURNING message_id""";

  private static final String INBOX_HASHES =
      "SELECT message_id, payload_hash FROM twinbox_inbox WHERE consumer = ? AND message_id IN (%s)";

  private static final String INBOX_PARK = """
      INSERT INTO twinbox_inbox_parked (consumer, message_id, type, version, source, aggregate_type, aggregate_id,
          sequence, payload, headers, correlation_id, causation_id, traceparent, origin, payload_hash, reason, attempts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""";

  private static final String INBOX_MARK_PARKED =
      "INSERT IGNORE INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES (?, ?, ?)";

  private static final String INBOX_ATTEMPT = """
      INSERT INTO twinbox_inbox_attempt (consumer, message_id, attempts, last_error) VALUES (?, ?, LAST_INSERT_ID(1), ?)
      ON DUPLICATE KEY UPDATE attempts = LAST_INSERT_ID(attempts + 1), last_error = VALUES(last_error),
                              updated_at = UTC_TIMESTAMP(6)""";

  private static final String INBOX_PURGE =
      "DELETE FROM twinbox_inbox WHERE received_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND LIMIT ?";

  private static final InboxSql INBOX = new InboxSql(new InboxSql.Fragments(INBOX_PARK, INBOX_MARK_PARKED,
      INBOX_PURGE, true));

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)");

  private static final AdminSql ADMIN = new AdminSql(
      new AdminSql.Fragments("UTC_TIMESTAMP(6)", "'1970-01-01 00:00:00'",
          "TIMESTAMPDIFF(MICROSECOND, %s, UTC_TIMESTAMP(6)) DIV 1000",
          "UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND", true, false),
      """
      DELETE FROM twinbox_outbox
       WHERE status = 'PUBLISHED' AND published_at < UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND
       LIMIT ?""",
      """
      DELETE FROM twinbox_supplied_id
       WHERE created_at < UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND
       LIMIT ?""")
      // The batch's rows locked, then copied and deleted by position in the same transaction.
      .archive(new AdminSql.Archive(null, """
          SELECT position FROM twinbox_outbox
           WHERE status = 'PUBLISHED' AND published_at < UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND
           ORDER BY position LIMIT ? FOR UPDATE"""));

  private MariaDbDialect() {}

  private static final InboxOrderSql INBOX_ORDER = new InboxOrderSql(new InboxOrderSql.Fragments(
      "INSERT IGNORE INTO twinbox_inbox_sequence (consumer, aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, ?, 0)",
      "UTC_TIMESTAMP(6)", "UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND", true));

  private static final ParkedSql PARKED = new ParkedSql(new ParkedSql.Fragments("UTC_TIMESTAMP(6)",
      "UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND", true,
      "TIMESTAMPDIFF(MICROSECOND, %s, UTC_TIMESTAMP(6)) DIV 1000", true));

  private static final Shared SHARED = new Shared(DEAD_LETTERS, INBOX, ADMIN, PARKED, INBOX_ORDER);

  @Override
  public Shared shared() {
    return SHARED;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public List<String> migrations() {
    return List.of("V1__twinbox.sql", "V2__inbox.sql", "V3__relay_node_instance.sql", "V4__outbox_hardening.sql",
        "V5__inbox_ordering.sql", "V6__parked_operations.sql", "V7__dead_letters.sql",
        "V8__outbox_archive.sql");
  }

  @Override
  public List<String> statements(String script) {
    return ScriptSplitter.split(script);
  }

  /**
   * MariaDB has no partitioned outbox: every unique key of a partitioned table must include the
   * partitioning column (our primary key on {@code position} and unique key on {@code id}), RANGE
   * partitioning has no DEFAULT partition (a write of a time no partition covers fails), and adding
   * or dropping a partition takes an exclusive metadata lock on the whole table. See
   * docs/partitioned-outbox.md, "MariaDB".
   */
  @Override
  public Optional<String> partitionedOutboxUnsupported() {
    return Optional.of("MariaDB has no partitioned outbox: its partitioning requires every unique key (the outbox's"
        + " primary key on position and unique key on id) to include the partitioning column, has no DEFAULT"
        + " partition for RANGE, and locks the whole table to add or drop a partition"
        + " (see docs/partitioned-outbox.md, \"MariaDB\")");
  }

  /**
   * A relay frozen inside one of its transactions (SIGSTOP, a long GC pause, a stalled host) would
   * keep its lease rows locked, and a successor's {@code SKIP LOCKED} acquire would skip them for as
   * long as the freeze lasts. The server ends a connection idle for 2 s inside a transaction
   * (MariaDB's {@code idle_transaction_timeout}, whole seconds), releasing its locks; the frozen
   * relay's late completion then fails, which only causes a republish. MariaDB has no
   * transaction-local setting, so the session value is put back after the transaction ({@link
   * #finishRelayTransaction}): the pool may be shared with the application's own transactions.
   */
  static final int RELAY_IDLE_TRANSACTION_TIMEOUT_SECONDS = 2;

  @Override
  public void prepareRelayTransaction(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION idle_transaction_timeout = " + RELAY_IDLE_TRANSACTION_TIMEOUT_SECONDS);
    }
  }

  @Override
  public void finishRelayTransaction(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION idle_transaction_timeout = DEFAULT");
    }
  }

  @Override
  public void checkVersion(Connection c) throws SQLException {
    checkVersion(c.getMetaData().getDatabaseProductName(), c.getMetaData().getDatabaseProductVersion());
  }

  /**
   * Refuses MySQL (no {@code INSERT … RETURNING}) and MariaDB older than {@value #MIN_MAJOR}.{@value
   * #MIN_MINOR} (no {@code SKIP LOCKED}), with the server's own version in the message.
   */
  static void checkVersion(String product, String reported) {
    // Old protocol versions report MariaDB 10+ as "5.5.5-10.x.y-MariaDB".
    String version = reported.startsWith("5.5.5-") ? reported.substring("5.5.5-".length()) : reported;
    boolean mariadb = version.toLowerCase(java.util.Locale.ROOT).contains("mariadb")
        || product.toLowerCase(java.util.Locale.ROOT).contains("mariadb");
    if (!mariadb) {
      throw new IllegalStateException("MariaDbDialect needs MariaDB " + MIN_MAJOR + "." + MIN_MINOR
          + "+; this server is " + product + " " + version + " (MySQL lacks INSERT ... RETURNING)");
    }
    Matcher m = VERSION.matcher(version);
    if (!m.find()) {
      throw new IllegalStateException("cannot read the MariaDB version from '" + version + "'");
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    if (major < MIN_MAJOR || major == MIN_MAJOR && minor < MIN_MINOR) {
      throw new IllegalStateException("Twinbox needs MariaDB " + MIN_MAJOR + "." + MIN_MINOR
          + " or newer (FOR UPDATE SKIP LOCKED); this server is " + version);
    }
  }

  // GET_LOCK names are server-wide (64 characters at most): the database in the name keeps two
  // Twinbox databases apart, hashed to fit.
  private static final String TRY_EXCLUSIVE_LOCK =
      "SELECT GET_LOCK(CONCAT('twinbox.', MD5(CONCAT(DATABASE(), '.', ?))), 0)";
  private static final String RELEASE_EXCLUSIVE_LOCK =
      "SELECT RELEASE_LOCK(CONCAT('twinbox.', MD5(CONCAT(DATABASE(), '.', ?))))";

  @Override
  public ExclusiveLockSql exclusiveLockSql() {
    return new ExclusiveLockSql(TRY_EXCLUSIVE_LOCK, RELEASE_EXCLUSIVE_LOCK);
  }

  @Override
  public void lockForMigration(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT GET_LOCK('twinbox_migrate', 60)")) {
      rs.next();
      if (rs.getInt(1) != 1) {
        throw new SQLException("could not take the migration lock within 60 s");
      }
    }
  }

  @Override
  public void unlockAfterMigration(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT RELEASE_LOCK('twinbox_migrate')")) {
      rs.next();
    }
  }

  @Override
  public void verifySchema(Connection c, int partitions) throws SQLException {
    SchemaCheck.verify(c, VERIFY, partitions);
  }

  private static final String RECORD_SUPPLIED_ID = "INSERT INTO twinbox_supplied_id (id) VALUES (?)";

  @Override
  public void append(Connection c, List<PreparedEvent> events) throws SQLException {
    // Caller-chosen ids go to a ledger first: a reuse fails here, before any event row.
    try (PreparedStatement ps = c.prepareStatement(RECORD_SUPPLIED_ID)) {
      for (PreparedEvent e : events) {
        if (e.event().id() != null) {
          ps.setString(1, e.id().toString());
          ps.executeUpdate();
        }
      }
    }
    List<PreparedEvent> sorted = new ArrayList<>(events);
    // Counter rows are locked in one global order so that multi-aggregate writes cannot deadlock.
    sorted.sort(Comparator.comparing((PreparedEvent e) -> e.event().aggregateType())
        .thenComparing(e -> e.event().aggregateId() == null ? "" : e.event().aggregateId()));
    try (PreparedStatement next = c.prepareStatement(NEXT_SEQUENCE);
        PreparedStatement ordered = c.prepareStatement(INSERT_EVENT.formatted("LAST_INSERT_ID()"));
        PreparedStatement unordered = c.prepareStatement(INSERT_EVENT.formatted("0"))) {
      for (PreparedEvent e : sorted) {
        PreparedStatement insert = unordered;
        if (e.event().ordered()) {
          next.setString(1, e.event().aggregateType());
          next.setString(2, e.event().aggregateId());
          next.executeUpdate();
          insert = ordered;
        }
        int i = 1;
        insert.setString(i++, e.id().toString());
        insert.setString(i++, e.event().aggregateType());
        insert.setString(i++, e.event().aggregateId());
        insert.setString(i++, e.event().type());
        insert.setInt(i++, e.event().version());
        insert.setString(i++, e.event().payload());
        insert.setString(i++, e.headersJson());
        insert.setString(i++, e.event().correlationId());
        insert.setString(i++, e.event().causationId());
        insert.setString(i++, e.traceparent());
        insert.setObject(i, LocalDateTime.ofInstant(e.occurredAt(), ZoneOffset.UTC));
        insert.executeUpdate();
      }
    }
  }

  @Override
  public int heartbeat(Connection c, String nodeId, Duration ttl) throws SQLException {
    NodeSql.beat(c, HEARTBEAT, nodeId);
    return forgetDeadAndCountLive(c, ttl);
  }

  @Override
  public int heartbeat(Connection c, String nodeId, String instance, Duration ttl) throws SQLException {
    try (PreparedStatement up = c.prepareStatement(HEARTBEAT_INSTANCE)) {
      up.setString(1, nodeId);
      up.setString(2, instance);
      up.executeUpdate();
    }
    // The driver reports found rows, not changed ones, so the row says who holds the node id.
    if (!instance.equals(nodeHolder(c, nodeId).instance())) {
      throw NodeSql.takenOver(nodeId, ttl);
    }
    return forgetDeadAndCountLive(c, ttl);
  }

  @Override
  public Optional<Instant> registerNode(Connection c, String nodeId, String instance, Duration ttl)
      throws SQLException {
    try (PreparedStatement up = c.prepareStatement(REGISTER_NODE)) {
      up.setString(1, nodeId);
      up.setString(2, instance);
      long lapsed = micros(ttl);
      up.setLong(3, lapsed);
      up.setLong(4, lapsed);
      up.setLong(5, lapsed);
      up.executeUpdate();
    }
    NodeHolder h = nodeHolder(c, nodeId);
    return instance.equals(h.instance()) ? Optional.empty() : Optional.of(h.heartbeatAt());
  }

  private record NodeHolder(String instance, Instant heartbeatAt) {}

  private static NodeHolder nodeHolder(Connection c, String nodeId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(NODE_HOLDER)) {
      ps.setString(1, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new NodeHolder(rs.getString(1), rs.getObject(2, LocalDateTime.class).toInstant(ZoneOffset.UTC));
      }
    }
  }

  private static int forgetDeadAndCountLive(Connection c, Duration ttl) throws SQLException {
    try (PreparedStatement dead = c.prepareStatement(DEAD_NODES);
        PreparedStatement count = c.prepareStatement(LIVE_NODES)) {
      long deadAfter = micros(ttl) * 10;
      dead.setLong(1, deadAfter);
      List<String> candidates = new ArrayList<>();
      try (ResultSet rs = dead.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getString(1));
        }
      }
      if (!candidates.isEmpty()) {
        Collections.sort(candidates); // one lock order among relays forgetting the same nodes
        try (PreparedStatement forget = c.prepareStatement(FORGET_DEAD_NODES.formatted(Rows.marks(candidates.size())))) {
          int i = 1;
          for (String id : candidates) {
            forget.setString(i++, id);
          }
          forget.setLong(i, deadAfter);
          forget.executeUpdate();
        }
      }
      count.setLong(1, micros(ttl));
      try (ResultSet rs = count.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Override
  public List<PartitionLease> acquire(Connection c, String nodeId, int max, Duration ttl) throws SQLException {
    List<Integer> candidates = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(FREE_LEASES)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getInt(1));
        }
      }
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    Collections.shuffle(candidates); // relays starting together spread over the partitions
    List<Integer> free = new ArrayList<>();
    int next = 0;
    while (free.size() < max && next < candidates.size()) {
      List<Integer> round = new ArrayList<>(
          candidates.subList(next, Math.min(candidates.size(), next + max - free.size())));
      next += round.size();
      Collections.sort(round);
      try (PreparedStatement ps = c.prepareStatement(LOCK_FREE_LEASES.formatted(Rows.marks(round.size())))) {
        bindInts(ps, 1, round);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            free.add(rs.getInt(1));
          }
        }
      }
    }
    Collections.sort(free);
    if (free.isEmpty()) {
      return List.of();
    }
    try (PreparedStatement ps = c.prepareStatement(TAKE_LEASES.formatted(Rows.marks(free.size())))) {
      ps.setString(1, nodeId);
      ps.setLong(2, micros(ttl));
      bindInts(ps, 3, free);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(OWNED_LEASES.formatted(Rows.marks(free.size())))) {
      ps.setString(1, nodeId);
      bindInts(ps, 2, free);
      return NodeSql.leases(ps);
    }
  }

  @Override
  public List<PartitionLease> renew(Connection c, String nodeId, Collection<PartitionLease> leases, Duration ttl)
      throws SQLException {
    if (leases.isEmpty()) {
      return List.of();
    }
    try (PreparedStatement ps = c.prepareStatement(RENEW.formatted(Rows.marks(leases.size()), pairs(leases.size())))) {
      ps.setLong(1, micros(ttl));
      int i = bindPartitions(ps, 2, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(HELD.formatted(Rows.marks(leases.size()), pairs(leases.size())))) {
      int i = bindPartitions(ps, 1, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      return NodeSql.leases(ps);
    }
  }

  @Override
  public void release(Connection c, String nodeId, Collection<PartitionLease> leases) throws SQLException {
    if (leases.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(RELEASE.formatted(Rows.marks(leases.size()), pairs(leases.size())))) {
      int i = bindPartitions(ps, 1, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      ps.executeUpdate();
    }
  }

  @Override
  public void prepareClaim(Connection c) {
    // FORCE INDEX in the claim keeps it on the pending index; nothing to set per transaction.
  }

  @Override
  public List<ClaimedRow> claim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException {
    if (leases.isEmpty()) {
      return List.of();
    }
    List<Integer> partitions = leases.stream().map(PartitionLease::partition).toList();
    try (PreparedStatement ps = c.prepareStatement(CLAIM.formatted(Rows.marks(partitions.size())))) {
      int i = bindInts(ps, 1, partitions);
      ps.setString(i++, nodeId);
      ps.setInt(i, limit);
      return Rows.claimedRows(ps, limit, true, false);
    }
  }

  @Override
  public Completion complete(Connection c, String nodeId, Collection<PartitionLease> leases,
      List<OutboxMessage> published, List<FailedPublish> failed, CompletionMode mode) throws SQLException {
    List<Integer> held = new ArrayList<>();
    if (!leases.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(
          LOCK_HELD_LEASES.formatted(Rows.marks(leases.size()), pairs(leases.size())))) {
        int i = bindPartitions(ps, 1, leases);
        ps.setString(i++, nodeId);
        bindLeases(ps, i, leases);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            held.add(rs.getInt(1));
          }
        }
      }
    }
    int completed = 0;
    if (!published.isEmpty() && !held.isEmpty()) {
      String sql = (mode == CompletionMode.DELETE ? DELETE_PUBLISHED : MARK_PUBLISHED)
          .formatted(Rows.marks(published.size()), Rows.marks(held.size()));
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        int i = 1;
        for (OutboxMessage m : published) {
          ps.setLong(i++, m.position());
        }
        bindInts(ps, i, held);
        completed = ps.executeUpdate();
      }
    }
    int failedRows = 0;
    if (!failed.isEmpty() && !held.isEmpty()) {
      boolean deadLetters = failed.stream().anyMatch(FailedPublish::deadLetter);
      String sql = (deadLetters ? RECORD_FAILURE_DEAD_LETTERS : RECORD_FAILURE).formatted(Rows.marks(held.size()));
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (FailedPublish f : failed) {
          int i = 1;
          if (deadLetters) {
            ps.setString(i++, f.dead() && f.deadLetter() ? "FAILED" : "PENDING");
          }
          ps.setString(i++, f.dead() ? "FAILED" : "PENDING");
          ps.setLong(i++, micros(f.retryAfter()));
          ps.setString(i++, f.error());
          ps.setLong(i++, f.position());
          bindInts(ps, i, held);
          failedRows += ps.executeUpdate();
        }
      }
    }
    return new Completion(completed, failedRows, (published.size() - completed) + (failed.size() - failedRows));
  }

  @Override
  public List<String> inboxRecord(Connection c, String consumer, Map<String, String> hashes) throws SQLException {
    List<String> ids = new ArrayList<>(hashes.keySet());
    Collections.sort(ids); // one lock order for concurrent consumers
    String values = String.join(", ", Collections.nCopies(ids.size(), "(?, ?, ?)"));
    try (PreparedStatement ps = c.prepareStatement(INBOX_RECORD.formatted(values))) {
      int i = 1;
      for (String id : ids) {
        ps.setString(i++, consumer);
        ps.setString(i++, id);
        ps.setString(i++, hashes.get(id));
      }
      return Rows.firstColumn(ps);
    }
  }

  @Override
  public Map<String, String> inboxHashes(Connection c, String consumer, List<String> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_HASHES.formatted(Rows.marks(ids.size())))) {
      ps.setString(1, consumer);
      int i = 2;
      for (String id : ids) {
        ps.setString(i++, id);
      }
      return Rows.firstToSecond(ps);
    }
  }

  /**
   * Half of what {@code max_allowed_packet} leaves after 1 MiB for the other fields: the driver
   * sends parameters as escaped text, which at worst doubles them.
   */
  @Override
  public long inboxMaxParkedPayloadBytes(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@max_allowed_packet")) {
      rs.next();
      return Math.max(0, (rs.getLong(1) - 1024 * 1024) / 2);
    }
  }

  @Override
  public int inboxRecordAttempt(Connection c, String consumer, String messageId, String error) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_ATTEMPT)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.setString(3, StoreRules.storableReason(error)); // an exception's text may hold NUL
      ps.executeUpdate();
    }
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Override
  public boolean isTransient(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s.getErrorCode() == ER_LOCK_DEADLOCK || s.getErrorCode() == ER_LOCK_WAIT_TIMEOUT
          || "40001".equals(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isDuplicateMessageId(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s.getErrorCode() == ER_DUP_ENTRY) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if (s.getErrorCode() == ER_NO_SUCH_TABLE || s.getErrorCode() == ER_BAD_FIELD_ERROR) {
        return true;
      }
    }
    return false;
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  private static String pairs(int n) {
    return String.join(", ", Collections.nCopies(n, "(?, ?)"));
  }

  private static int bindInts(PreparedStatement ps, int index, List<Integer> values) throws SQLException {
    for (int v : values) {
      ps.setInt(index++, v);
    }
    return index;
  }

  private static int bindPartitions(PreparedStatement ps, int index, Collection<PartitionLease> leases)
      throws SQLException {
    for (PartitionLease l : leases) {
      ps.setInt(index++, l.partition());
    }
    return index;
  }

  private static void bindLeases(PreparedStatement ps, int index, Collection<PartitionLease> leases)
      throws SQLException {
    for (PartitionLease l : leases) {
      ps.setInt(index++, l.partition());
      ps.setLong(index++, l.epoch());
    }
  }

}
