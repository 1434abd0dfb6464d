package io.twinbox.jdbc;

import io.twinbox.CompletionMode;
import io.twinbox.InboxMessage;
import io.twinbox.SchemaNotMigratedException;
import io.twinbox.internal.Reasons;
import io.twinbox.jdbc.internal.AdminSql;
import io.twinbox.jdbc.internal.ParkBinding;
import io.twinbox.jdbc.internal.Rows;
import io.twinbox.jdbc.internal.ScriptSplitter;
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
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  private static final String LEAVE = "DELETE FROM twinbox_relay_node WHERE node_id = ?";

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

  private static final String INBOX_CLEAR_ATTEMPTS =
      "DELETE FROM twinbox_inbox_attempt WHERE consumer = ? AND message_id = ?";

  private static final String INBOX_PURGE =
      "DELETE FROM twinbox_inbox WHERE received_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND LIMIT ?";

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)");

  private static final AdminSql ADMIN = new AdminSql(
      new AdminSql.Fragments("UTC_TIMESTAMP(6)", "'1970-01-01 00:00:00'",
          "TIMESTAMPDIFF(MICROSECOND, %s, UTC_TIMESTAMP(6)) DIV 1000", true, false),
      """
      DELETE FROM twinbox_outbox
       WHERE status = 'PUBLISHED' AND published_at < UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND
       LIMIT ?""");

  private MariaDbDialect() {}

  @Override
  public AdminSql admin() {
    return ADMIN;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public List<String> migrations() {
    return List.of("V1__twinbox.sql", "V2__inbox.sql");
  }

  @Override
  public List<String> statements(String script) {
    return ScriptSplitter.split(script);
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
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(VERIFY)) {
      rs.next();
      if (rs.getLong(2) != 4) {
        throw new SchemaNotMigratedException("twinbox_outbox lacks columns of schema version 1", null);
      }
      if (rs.getLong(1) != partitions) {
        throw new SchemaNotMigratedException(
            "twinbox_relay_lease has " + rs.getLong(1) + " partitions, expected " + partitions, null);
      }
    }
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
    try (PreparedStatement up = c.prepareStatement(HEARTBEAT);
        PreparedStatement dead = c.prepareStatement(DEAD_NODES);
        PreparedStatement count = c.prepareStatement(LIVE_NODES)) {
      up.setString(1, nodeId);
      up.executeUpdate();
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
        try (PreparedStatement forget = c.prepareStatement(FORGET_DEAD_NODES.formatted(marks(candidates.size())))) {
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
      try (PreparedStatement ps = c.prepareStatement(LOCK_FREE_LEASES.formatted(marks(round.size())))) {
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
    try (PreparedStatement ps = c.prepareStatement(TAKE_LEASES.formatted(marks(free.size())))) {
      ps.setString(1, nodeId);
      ps.setLong(2, micros(ttl));
      bindInts(ps, 3, free);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(OWNED_LEASES.formatted(marks(free.size())))) {
      ps.setString(1, nodeId);
      bindInts(ps, 2, free);
      return leases(ps);
    }
  }

  @Override
  public List<PartitionLease> renew(Connection c, String nodeId, Collection<PartitionLease> leases, Duration ttl)
      throws SQLException {
    if (leases.isEmpty()) {
      return List.of();
    }
    try (PreparedStatement ps = c.prepareStatement(RENEW.formatted(marks(leases.size()), pairs(leases.size())))) {
      ps.setLong(1, micros(ttl));
      int i = bindPartitions(ps, 2, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(HELD.formatted(marks(leases.size()), pairs(leases.size())))) {
      int i = bindPartitions(ps, 1, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      return leases(ps);
    }
  }

  @Override
  public void release(Connection c, String nodeId, Collection<PartitionLease> leases) throws SQLException {
    if (leases.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(RELEASE.formatted(marks(leases.size()), pairs(leases.size())))) {
      int i = bindPartitions(ps, 1, leases);
      ps.setString(i++, nodeId);
      bindLeases(ps, i, leases);
      ps.executeUpdate();
    }
  }

  @Override
  public void leave(Connection c, String nodeId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEAVE)) {
      ps.setString(1, nodeId);
      ps.executeUpdate();
    }
  }

  @Override
  public void prepareClaim(Connection c) {
    // FORCE INDEX in the claim keeps it on the pending index; nothing to set per transaction.
  }

  @Override
  public List<OutboxMessage> claim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException {
    if (leases.isEmpty()) {
      return List.of();
    }
    List<Integer> partitions = leases.stream().map(PartitionLease::partition).toList();
    try (PreparedStatement ps = c.prepareStatement(CLAIM.formatted(marks(partitions.size())))) {
      int i = bindInts(ps, 1, partitions);
      ps.setString(i++, nodeId);
      ps.setInt(i, limit);
      List<OutboxMessage> result = new ArrayList<>(Math.min(limit, 1024));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          result.add(Rows.message(rs, true));
        }
      }
      return result;
    }
  }

  @Override
  public Completion complete(Connection c, String nodeId, Collection<PartitionLease> leases,
      List<OutboxMessage> published, List<FailedPublish> failed, CompletionMode mode) throws SQLException {
    List<Integer> held = new ArrayList<>();
    if (!leases.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(
          LOCK_HELD_LEASES.formatted(marks(leases.size()), pairs(leases.size())))) {
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
          .formatted(marks(published.size()), marks(held.size()));
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
      try (PreparedStatement ps = c.prepareStatement(RECORD_FAILURE.formatted(marks(held.size())))) {
        for (FailedPublish f : failed) {
          ps.setString(1, f.dead() ? "FAILED" : "PENDING");
          ps.setLong(2, micros(f.retryAfter()));
          ps.setString(3, f.error());
          ps.setLong(4, f.position());
          bindInts(ps, 5, held);
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
      List<String> inserted = new ArrayList<>(ids.size());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getString(1));
        }
      }
      return inserted;
    }
  }

  @Override
  public Map<String, String> inboxHashes(Connection c, String consumer, List<String> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_HASHES.formatted(marks(ids.size())))) {
      ps.setString(1, consumer);
      int i = 2;
      for (String id : ids) {
        ps.setString(i++, id);
      }
      Map<String, String> result = new HashMap<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          result.put(rs.getString(1), rs.getString(2));
        }
      }
      return result;
    }
  }

  @Override
  public void inboxPark(Connection c, String consumer, InboxMessage m, String hash, String reason, int attempts)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_PARK)) {
      ParkBinding.bind(ps, consumer, m, hash, reason, attempts);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(INBOX_MARK_PARKED)) {
      ps.setString(1, consumer);
      ps.setString(2, m.id());
      ps.setString(3, hash);
      ps.executeUpdate();
    }
  }

  @Override
  public int inboxRecordAttempt(Connection c, String consumer, String messageId, String error) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_ATTEMPT)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.setString(3, Reasons.clip(error));
      ps.executeUpdate();
    }
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Override
  public void inboxClearAttempts(Connection c, String consumer, String messageId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_CLEAR_ATTEMPTS)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.executeUpdate();
    }
  }

  @Override
  public int inboxPurge(Connection c, Duration age, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_PURGE)) {
      ps.setLong(1, micros(age));
      ps.setInt(2, limit);
      return ps.executeUpdate();
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

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
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

  private static List<PartitionLease> leases(PreparedStatement ps) throws SQLException {
    List<PartitionLease> result = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        result.add(new PartitionLease(rs.getInt(1), rs.getLong(2)));
      }
    }
    return result;
  }
}
