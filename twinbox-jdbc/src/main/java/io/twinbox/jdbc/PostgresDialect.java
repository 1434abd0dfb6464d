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
import io.twinbox.jdbc.internal.PartitionSql;
import io.twinbox.jdbc.internal.PgErrors;
import io.twinbox.jdbc.internal.PgNotifyListener;
import io.twinbox.jdbc.internal.Rows;
import io.twinbox.jdbc.internal.SchemaCheck;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.Completion;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PreparedEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 12+. Holds all of Twinbox's PostgreSQL SQL. Times are judged on the database clock
 * ({@code clock_timestamp()}); wake-ups come from {@code LISTEN twinbox_outbox}, notified by a
 * statement trigger at commit. Stateless and thread-safe: use {@link #INSTANCE}.
 */
public final class PostgresDialect implements SqlDialect {
  public static final PostgresDialect INSTANCE = new PostgresDialect();

  /** The channel the outbox's insert trigger notifies. */
  private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);
  public static final String CHANNEL = "twinbox_outbox";

  private static final long MIGRATION_LOCK = 0x7477696e626f78L; // "twinbox"

  private static final String INSERT_ORDERED = """
      WITH s AS (
        INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, 1)
        ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
        RETURNING last_sequence)
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      SELECT ?, ?, ?, s.last_sequence, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ? FROM s""";

  private static final String INSERT_UNORDERED = """
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      VALUES (?, ?, NULL, 0, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?)""";

  private static final String VERIFY = """
      SELECT (SELECT count(*) FROM twinbox_relay_lease),
             (SELECT count(*) FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = 'twinbox_outbox'
                 AND column_name IN ('partition_no', 'sequence', 'next_attempt_at', 'traceparent'))""";

  private static final String HEARTBEAT = """
      INSERT INTO twinbox_relay_node (node_id, heartbeat_at) VALUES (?, clock_timestamp())
      ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = clock_timestamp()""";

  /** Beats only while the row is this instance's (or new); 0 rows: another run holds the node id. */
  private static final String HEARTBEAT_INSTANCE = """
      INSERT INTO twinbox_relay_node AS n (node_id, instance, heartbeat_at) VALUES (?, ?, clock_timestamp())
      ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
       WHERE n.instance IS NOT DISTINCT FROM EXCLUDED.instance""";

  /** Takes the row when it is new, already this instance's, or its heartbeat lapsed. */
  private static final String REGISTER_NODE = """
      INSERT INTO twinbox_relay_node AS n (node_id, instance, heartbeat_at, started_at)
      VALUES (?, ?, clock_timestamp(), clock_timestamp())
      ON CONFLICT (node_id) DO UPDATE
         SET instance = EXCLUDED.instance, heartbeat_at = EXCLUDED.heartbeat_at, started_at = EXCLUDED.started_at
       WHERE n.instance IS NOT DISTINCT FROM EXCLUDED.instance
          OR n.heartbeat_at <= clock_timestamp() - ? * interval '1 millisecond'""";

  private static final String NODE_HOLDER = "SELECT instance, heartbeat_at FROM twinbox_relay_node WHERE node_id = ?";

  private static final String LIVE_NODES = """
      SELECT count(*) FROM twinbox_relay_node
       WHERE heartbeat_at > clock_timestamp() - ? * interval '1 millisecond'""";

  private static final String FORGET_DEAD_NODES = """
      DELETE FROM twinbox_relay_node WHERE heartbeat_at < clock_timestamp() - ? * interval '1 millisecond'""";

  private static final String ACQUIRE = """
      UPDATE twinbox_relay_lease l
         SET owner = ?, epoch = l.epoch + 1, lease_until = clock_timestamp() + ? * interval '1 millisecond',
             acquired_at = clock_timestamp()
       WHERE l.partition_no IN (SELECT f.partition_no FROM twinbox_relay_lease f
                                 WHERE f.owner IS NULL OR f.lease_until < clock_timestamp()
                                 ORDER BY random() LIMIT ? FOR UPDATE SKIP LOCKED)
         AND (l.owner IS NULL OR l.lease_until < clock_timestamp())
      RETURNING l.partition_no, l.epoch""";

  private static final String RENEW = """
      UPDATE twinbox_relay_lease SET lease_until = clock_timestamp() + ? * interval '1 millisecond'
       WHERE owner = ? AND (partition_no, epoch) IN (SELECT * FROM unnest(?::int[], ?::bigint[]))
      RETURNING partition_no, epoch""";

  private static final String RELEASE = """
      UPDATE twinbox_relay_lease SET owner = NULL, lease_until = '-infinity'
       WHERE owner = ? AND (partition_no, epoch) IN (SELECT * FROM unnest(?::int[], ?::bigint[]))""";

  /** A row that holds back its aggregate: FAILED, or waiting for a retry (the partial index twinbox_outbox_held). */
  private static final String HELD = """
      (h.status = 'FAILED' OR (h.status = 'PENDING' AND h.attempts > 0))
                      AND (h.status = 'FAILED' OR h.next_attempt_at > statement_timestamp())""";

  /** An earlier held row of candidate {@code o}'s aggregate. */
  private static final String EARLIER_HELD_ROW = """
      SELECT 1 FROM twinbox_outbox h
                WHERE h.aggregate_type = o.aggregate_type AND h.aggregate_id = o.aggregate_id
                  AND h.sequence < o.sequence
                  AND """ + HELD + ")";

  /**
   * Due pending rows of partitions this node holds (checked against the lease table, on the
   * database clock), oldest first, skipping aggregates held back by an earlier FAILED row or an
   * earlier row that is waiting for its retry. Walks the partial pending index in position order.
   *
   * <p>One instant for the whole statement ({@code statement_timestamp()}, not {@code
   * clock_timestamp()}, which moves while the scan runs): otherwise a retrying row could be judged
   * not yet due when the scan passes it and no longer holding its aggregate when the scan reaches
   * a later row of it, which would then be published first.
   */
  private static final String CLAIM = claim("""
         AND (o.aggregate_id IS NULL OR NOT EXISTS (""" + EARLIER_HELD_ROW + ")");

  /**
   * The claim on an outbox partitioned by time. The per-row probe of {@link #CLAIM} would visit the
   * held index of every partition for every candidate row (the partition key, {@code created_at},
   * says nothing about an aggregate's earlier rows): 2 buffers per partition per row, 127,000 for a
   * batch of 500 over 127 partitions. Here the aggregates that have any held row are read once per
   * claim (each partition's partial held index, usually empty: about one buffer per partition) and
   * hashed; only a candidate whose aggregate is among them pays the exact probe. The cost grows with
   * the number of held rows (FAILED or waiting for a retry), not with the number of partitions.
   */
  private static final String CLAIM_PARTITIONED = claim("""
         AND (o.aggregate_id IS NULL
              OR (o.aggregate_type, o.aggregate_id) NOT IN (
                   SELECT h.aggregate_type, h.aggregate_id FROM twinbox_outbox h
                    WHERE h.aggregate_id IS NOT NULL AND """ + HELD + """
      )
              OR NOT EXISTS (""" + EARLIER_HELD_ROW + ")");

  private static String claim(String heldCheck) {
    return """
      SELECT o.position, o.id, o.aggregate_type, o.aggregate_id, o.sequence, o.partition_no, o.type, o.version,
             o.payload::text, o.headers::text, o.correlation_id, o.causation_id, o.traceparent,
             o.occurred_at, o.created_at, o.attempts
        FROM twinbox_outbox o
       WHERE o.status = 'PENDING'
         AND o.next_attempt_at <= statement_timestamp()
         AND o.partition_no = ANY(?)
         AND o.partition_no IN (SELECT l.partition_no FROM twinbox_relay_lease l
                                 WHERE l.owner = ? AND l.lease_until > statement_timestamp())
      """ + heldCheck + """

       ORDER BY o.position
       LIMIT ?""";
  }

  /**
   * A drained outbox is empty most of the time, so its statistics say "empty" exactly when a
   * burst arrives; without these settings the planner may then pick a sequential scan and sort.
   * With them, the estimated cost crosses {@code jit_above_cost}, and JIT compilation would take
   * ~75 ms for a query that runs in ~1.5 ms: JIT is off for the relay's statements.
   */
  private static final String CLAIM_SETTINGS =
      "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off";

  /** Bookkeeping commits may be lost in a crash: that only causes a republish the inbox absorbs. */
  private static final String COMPLETE_SETTINGS = "SET LOCAL synchronous_commit = off; SET LOCAL jit = off";

  private static final String LOCK_HELD_LEASES = """
      SELECT partition_no FROM twinbox_relay_lease
       WHERE owner = ? AND (partition_no, epoch) IN (SELECT * FROM unnest(?::int[], ?::bigint[]))
         FOR UPDATE""";

  private static final String DELETE_PUBLISHED = """
      DELETE FROM twinbox_outbox
       WHERE position = ANY(?) AND partition_no = ANY(?) AND status = 'PENDING'""";

  private static final String MARK_PUBLISHED = """
      UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = clock_timestamp()
       WHERE position = ANY(?) AND partition_no = ANY(?) AND status = 'PENDING'""";

  /**
   * The completion bounded by the batch's {@code created_at} (the partition key of a partitioned
   * outbox): the planner then visits only the partitions of that range, usually one, instead of
   * probing the position index of every partition (127 partitions: 73 us a row in MARK mode against
   * 16 us on 35). On a plain table the bound is a filter on rows already found. A row the bounded
   * statement misses (a {@code created_at} changed by hand) is completed by the unbounded one.
   */
  private static final String CREATED_IN_BATCH = " AND created_at BETWEEN ? AND ?";

  private static final String RECORD_FAILURES = """
      UPDATE twinbox_outbox o
         SET attempts = o.attempts + 1,
             status = CASE WHEN f.dead THEN 'FAILED' ELSE 'PENDING' END,
             next_attempt_at = clock_timestamp() + f.delay_ms * interval '1 millisecond',
             last_error = f.error
        FROM unnest(?::bigint[], ?::boolean[], ?::bigint[], ?::text[]) AS f(position, dead, delay_ms, error)
       WHERE o.position = f.position AND o.partition_no = ANY(?) AND o.status = 'PENDING'""";

  /**
   * {@link #RECORD_FAILURES} of a relay with dead letters: also the failure times (the first since the
   * attempts were last reset), and a FAILED row's dead letter PENDING, in the same update.
   */
  private static final String RECORD_FAILURES_DEAD_LETTERS = """
      UPDATE twinbox_outbox o
         SET attempts = o.attempts + 1,
             status = CASE WHEN f.dead THEN 'FAILED' ELSE 'PENDING' END,
             next_attempt_at = clock.at + f.delay_ms * interval '1 millisecond',
             last_error = f.error,
             first_failed_at = CASE WHEN o.attempts = 0 OR o.first_failed_at IS NULL THEN clock.at
                                    ELSE o.first_failed_at END,
             last_failed_at = clock.at,
             dead_letter = CASE WHEN f.dead AND f.dl THEN 'PENDING' ELSE o.dead_letter END
        FROM unnest(?::bigint[], ?::boolean[], ?::bigint[], ?::text[], ?::boolean[])
               AS f(position, dead, delay_ms, error, dl),
             (SELECT clock_timestamp() AS at) clock  -- one failure time for the whole row
       WHERE o.position = f.position AND o.partition_no = ANY(?) AND o.status = 'PENDING'""";

  private static final DeadLetterSql DEAD_LETTERS = new DeadLetterSql(new DeadLetterSql.Fragments(
      "statement_timestamp()", "o.payload::text, o.headers::text", false, true));

  private static final String INBOX_RECORD = """
      INSERT INTO twinbox_inbox (consumer, message_id, payload_hash)
      SELECT ?, t.id, t.hash FROM unnest(?::text[], ?::text[]) AS t(id, hash) ORDER BY t.id
      ON CONFLICT (consumer, message_id) DO NOTHING
      RETURNING message_id""";

  private static final String INBOX_HASHES = """
      SELECT message_id, payload_hash FROM twinbox_inbox WHERE consumer = ? AND message_id = ANY(?)""";

  private static final String INBOX_PARK = """
      INSERT INTO twinbox_inbox_parked (consumer, message_id, type, version, source, aggregate_type, aggregate_id,
          sequence, payload, headers, correlation_id, causation_id, traceparent, origin, payload_hash, reason, attempts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?)""";

  private static final String INBOX_MARK_PARKED = """
      INSERT INTO twinbox_inbox (consumer, message_id, payload_hash) VALUES (?, ?, ?)
      ON CONFLICT (consumer, message_id) DO NOTHING""";

  private static final String INBOX_ATTEMPT = """
      INSERT INTO twinbox_inbox_attempt AS a (consumer, message_id, attempts, last_error) VALUES (?, ?, 1, ?)
      ON CONFLICT (consumer, message_id)
        DO UPDATE SET attempts = a.attempts + 1, last_error = excluded.last_error, updated_at = clock_timestamp()
      RETURNING attempts""";

  private static final String INBOX_PURGE = """
      DELETE FROM twinbox_inbox WHERE ctid IN (
        SELECT ctid FROM twinbox_inbox
         WHERE received_at < clock_timestamp() - ? * interval '1 millisecond' LIMIT ?)""";

  private static final InboxSql INBOX = new InboxSql(new InboxSql.Fragments(INBOX_PARK, INBOX_MARK_PARKED,
      INBOX_PURGE, false));

  private static final AdminSql ADMIN = new AdminSql(
      new AdminSql.Fragments("clock_timestamp()", "'-infinity'",
          "(extract(epoch FROM clock_timestamp() - %s) * 1000)::bigint",
          "clock_timestamp() - ? * interval '1 millisecond'", false, true),
      """
      DELETE FROM twinbox_outbox WHERE position IN (
        SELECT position FROM twinbox_outbox
         WHERE status = 'PUBLISHED' AND published_at < clock_timestamp() - ? * interval '1 millisecond' LIMIT ?)""",
      """
      DELETE FROM twinbox_supplied_id WHERE id IN (
        SELECT id FROM twinbox_supplied_id
         WHERE created_at < clock_timestamp() - ? * interval '1 millisecond' LIMIT ?)""")
      // One statement: the batch is deleted and inserted together or not at all.
      .archive(new AdminSql.Archive("WITH moved AS (DELETE FROM twinbox_outbox WHERE position IN ("
          + " SELECT position FROM twinbox_outbox WHERE status = 'PUBLISHED'"
          + " AND published_at < clock_timestamp() - ? * interval '1 millisecond' LIMIT ?) RETURNING "
          + AdminSql.ARCHIVE_COLUMNS + ") INSERT INTO twinbox_outbox_archive (" + AdminSql.ARCHIVE_COLUMNS
          + ") SELECT " + AdminSql.ARCHIVE_COLUMNS + " FROM moved", null));

  private static final InboxOrderSql INBOX_ORDER = new InboxOrderSql(new InboxOrderSql.Fragments("""
      INSERT INTO twinbox_inbox_sequence (consumer, aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, ?, 0)
      ON CONFLICT (consumer, aggregate_type, aggregate_id) DO NOTHING""",
      "clock_timestamp()", "clock_timestamp() - ? * interval '1 millisecond'", false));

  private static final ParkedSql PARKED = new ParkedSql(new ParkedSql.Fragments("clock_timestamp()",
      "clock_timestamp() - ? * interval '1 millisecond'", false,
      "(extract(epoch FROM clock_timestamp() - %s) * 1000)::bigint", false));

  private PostgresDialect() {}

  private static final Shared SHARED = new Shared(DEAD_LETTERS, INBOX, ADMIN, PARKED, INBOX_ORDER);

  @Override
  public Shared shared() {
    return SHARED;
  }

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public List<String> migrations() {
    return List.of("V1__twinbox.sql", "V2__inbox.sql", "V3__commit_notifications_opt_in.sql",
        "V4__relay_node_instance.sql", "V5__outbox_hardening.sql", "V6__inbox_ordering.sql",
        "V7__parked_operations.sql", "V8__dead_letters.sql", "V9__outbox_archive.sql");
  }

  private static final PartitionedOutbox PARTITIONED = new PartitionedOutbox(
      List.of("partitioned/P0__outbox_partitioning.sql", "partitioned/P1__outbox_by_time.sql"), new PartitionSql());

  /** PostgreSQL 13+: the outbox partitioned by time (see docs/partitioned-outbox.md). */
  @Override
  public Optional<PartitionedOutbox> partitionedOutbox() {
    return Optional.of(PARTITIONED);
  }

  /**
   * A relay frozen inside one of its transactions (SIGSTOP, a long GC pause, a stalled host) would
   * keep its lease rows locked, and a successor's {@code SKIP LOCKED} acquire would skip them for as
   * long as the freeze lasts. The server ends such a session after 2 s idle inside a transaction,
   * releasing the locks; the frozen relay's late completion then fails, which only causes a
   * republish.
   */
  private static final String RELAY_TRANSACTION_SETTINGS = "SET LOCAL idle_in_transaction_session_timeout = '2s'";

  @Override
  public void prepareRelayTransaction(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(RELAY_TRANSACTION_SETTINGS);
    }
  }

  @Override
  public void checkVersion(Connection c) throws SQLException {
    int major = c.getMetaData().getDatabaseMajorVersion();
    if (major < 12) {
      throw new IllegalStateException("Twinbox needs PostgreSQL 12 or newer (generated columns); this server is "
          + c.getMetaData().getDatabaseProductVersion());
    }
  }

  // Advisory locks are per database; the schema in the key keeps two Twinbox schemas apart.
  private static final String TRY_EXCLUSIVE_LOCK =
      "SELECT CASE WHEN pg_try_advisory_lock(hashtextextended(current_schema() || '.' || ?, 0)) THEN 1 ELSE 0 END";
  private static final String RELEASE_EXCLUSIVE_LOCK =
      "SELECT CASE WHEN pg_advisory_unlock(hashtextextended(current_schema() || '.' || ?, 0)) THEN 1 ELSE 0 END";

  @Override
  public ExclusiveLockSql exclusiveLockSql() {
    return new ExclusiveLockSql(TRY_EXCLUSIVE_LOCK, RELEASE_EXCLUSIVE_LOCK);
  }

  @Override
  public void lockForMigration(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      ps.setLong(1, MIGRATION_LOCK);
      ps.execute();
    }
  }

  @Override
  public void verifySchema(Connection c, int partitions) throws SQLException {
    SchemaCheck.verify(c, VERIFY, partitions);
  }

  /**
   * Records a caller-chosen id unless an outbox row has it already (0 rows: a reuse). The probe
   * matters on a partitioned outbox, which has no unique index on {@code id}: an id the writer
   * generated earlier is not in the ledger, yet must not be reused while its row is kept.
   */
  private static final String RECORD_SUPPLIED_ID = """
      INSERT INTO twinbox_supplied_id (id) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM twinbox_outbox WHERE id = ?)""";

  @Override
  public void append(Connection c, List<PreparedEvent> events) throws SQLException {
    recordSuppliedIds(c, events);
    List<PreparedEvent> ordered = new ArrayList<>();
    List<PreparedEvent> unordered = new ArrayList<>();
    for (PreparedEvent e : events) {
      (e.event().ordered() ? ordered : unordered).add(e);
    }
    if (!ordered.isEmpty()) {
      // Take counter locks in one global order (stable: keeps each aggregate's own order), so
      // that two multi-aggregate writes cannot deadlock on the counters.
      ordered.sort(Comparator.comparing((PreparedEvent e) -> e.event().aggregateType())
          .thenComparing(e -> e.event().aggregateId()));
      try (PreparedStatement ps = c.prepareStatement(INSERT_ORDERED)) {
        for (PreparedEvent e : ordered) {
          int i = 1;
          ps.setString(i++, e.event().aggregateType());
          ps.setString(i++, e.event().aggregateId());
          ps.setObject(i++, e.id());
          ps.setString(i++, e.event().aggregateType());
          ps.setString(i++, e.event().aggregateId());
          bindCommon(ps, i, e);
          addOrRun(ps, ordered.size());
        }
        if (ordered.size() > 1) {
          ps.executeBatch();
        }
      }
    }
    if (!unordered.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(INSERT_UNORDERED)) {
        for (PreparedEvent e : unordered) {
          int i = 1;
          ps.setObject(i++, e.id());
          ps.setString(i++, e.event().aggregateType());
          bindCommon(ps, i, e);
          addOrRun(ps, unordered.size());
        }
        if (unordered.size() > 1) {
          ps.executeBatch();
        }
      }
    }
  }

  /** Caller-chosen ids go to a ledger first: a reuse fails here, before any event row. */
  private static void recordSuppliedIds(Connection c, List<PreparedEvent> events) throws SQLException {
    List<PreparedEvent> supplied = events.stream().filter(e -> e.event().id() != null).toList();
    if (supplied.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(RECORD_SUPPLIED_ID)) {
      if (supplied.size() == 1) {
        ps.setObject(1, supplied.get(0).id());
        ps.setObject(2, supplied.get(0).id());
        if (ps.executeUpdate() == 0) {
          throw inOutbox(supplied.get(0));
        }
        return;
      }
      for (PreparedEvent e : supplied) {
        ps.setObject(1, e.id());
        ps.setObject(2, e.id());
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          throw inOutbox(supplied.get(i));
        }
      }
    }
  }

  /** As the server reports a unique violation (23505), naming the id. */
  private static SQLException inOutbox(PreparedEvent e) {
    return new SQLException("duplicate key value: message id " + e.id() + " is already in twinbox_outbox", "23505");
  }

  private static void addOrRun(PreparedStatement ps, int count) throws SQLException {
    if (count == 1) {
      ps.executeUpdate();
    } else {
      ps.addBatch();
    }
  }

  private static void bindCommon(PreparedStatement ps, int i, PreparedEvent e) throws SQLException {
    ps.setString(i++, e.event().type());
    ps.setInt(i++, e.event().version());
    ps.setString(i++, e.event().payload());
    ps.setString(i++, e.headersJson());
    ps.setString(i++, e.event().correlationId());
    ps.setString(i++, e.event().causationId());
    ps.setString(i++, e.traceparent());
    ps.setTimestamp(i, Timestamp.from(e.occurredAt()));
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
      if (up.executeUpdate() == 0) {
        throw NodeSql.takenOver(nodeId, ttl);
      }
    }
    return forgetDeadAndCountLive(c, ttl);
  }

  @Override
  public Optional<Instant> registerNode(Connection c, String nodeId, String instance, Duration ttl)
      throws SQLException {
    try (PreparedStatement up = c.prepareStatement(REGISTER_NODE)) {
      up.setString(1, nodeId);
      up.setString(2, instance);
      up.setLong(3, ttl.toMillis());
      up.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(NODE_HOLDER)) {
      ps.setString(1, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return instance.equals(rs.getString(1)) ? Optional.empty()
            : Optional.of(rs.getObject(2, OffsetDateTime.class).toInstant());
      }
    }
  }

  private static int forgetDeadAndCountLive(Connection c, Duration ttl) throws SQLException {
    try (PreparedStatement forget = c.prepareStatement(FORGET_DEAD_NODES);
        PreparedStatement count = c.prepareStatement(LIVE_NODES)) {
      forget.setLong(1, ttl.toMillis() * 10);
      forget.executeUpdate();
      count.setLong(1, ttl.toMillis());
      try (ResultSet rs = count.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Override
  public List<PartitionLease> acquire(Connection c, String nodeId, int max, Duration ttl) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ACQUIRE)) {
      ps.setString(1, nodeId);
      ps.setLong(2, ttl.toMillis());
      ps.setInt(3, max);
      return NodeSql.leases(ps);
    }
  }

  @Override
  public List<PartitionLease> renew(Connection c, String nodeId, Collection<PartitionLease> leases, Duration ttl)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RENEW)) {
      ps.setLong(1, ttl.toMillis());
      ps.setString(2, nodeId);
      bindLeases(c, ps, 3, leases);
      return NodeSql.leases(ps);
    }
  }

  @Override
  public void release(Connection c, String nodeId, Collection<PartitionLease> leases) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RELEASE)) {
      ps.setString(1, nodeId);
      bindLeases(c, ps, 2, leases);
      ps.executeUpdate();
    }
  }

  @Override
  public void prepareClaim(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(CLAIM_SETTINGS);
    }
  }

  @Override
  public List<ClaimedRow> claim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException {
    return claim(c, CLAIM, nodeId, leases, limit);
  }

  @Override
  public List<ClaimedRow> claimPartitioned(Connection c, String nodeId, Collection<PartitionLease> leases, int limit)
      throws SQLException {
    return claim(c, CLAIM_PARTITIONED, nodeId, leases, limit);
  }

  private static List<ClaimedRow> claim(Connection c, String sql, String nodeId, Collection<PartitionLease> leases,
      int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, intArray(c, leases.stream().map(PartitionLease::partition).toList()));
      ps.setString(2, nodeId);
      ps.setInt(3, limit);
      return Rows.claimedRows(ps, limit, false, true);
    }
  }

  @Override
  public Completion complete(Connection c, String nodeId, Collection<PartitionLease> leases,
      List<OutboxMessage> published, List<FailedPublish> failed, CompletionMode mode) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(COMPLETE_SETTINGS);
    }
    List<Integer> held = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(LOCK_HELD_LEASES)) {
      ps.setString(1, nodeId);
      bindLeases(c, ps, 2, leases);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          held.add(rs.getInt(1));
        }
      }
    }
    Array heldArray = intArray(c, held);
    int completed = 0;
    if (!published.isEmpty() && !held.isEmpty()) {
      String complete = mode == CompletionMode.DELETE ? DELETE_PUBLISHED : MARK_PUBLISHED;
      Array positions = c.createArrayOf("int8", published.stream().map(OutboxMessage::position).toArray());
      Instant[] created = createdRange(published);
      try (PreparedStatement ps = c.prepareStatement(created != null ? complete + CREATED_IN_BATCH : complete)) {
        ps.setArray(1, positions);
        ps.setArray(2, heldArray);
        if (created != null) {
          ps.setObject(3, created[0].atOffset(ZoneOffset.UTC));
          ps.setObject(4, created[1].atOffset(ZoneOffset.UTC));
        }
        completed = ps.executeUpdate();
      }
      if (created != null && completed < published.size()) {
        try (PreparedStatement ps = c.prepareStatement(complete)) {
          ps.setArray(1, positions);
          ps.setArray(2, heldArray);
          completed += ps.executeUpdate();
        }
      }
    }
    int failedRows = 0;
    if (!failed.isEmpty() && !held.isEmpty()) {
      boolean deadLetters = failed.stream().anyMatch(FailedPublish::deadLetter);
      try (PreparedStatement ps = c.prepareStatement(deadLetters ? RECORD_FAILURES_DEAD_LETTERS : RECORD_FAILURES)) {
        ps.setArray(1, c.createArrayOf("int8", failed.stream().map(FailedPublish::position).toArray()));
        ps.setArray(2, c.createArrayOf("bool", failed.stream().map(FailedPublish::dead).toArray()));
        ps.setArray(3, c.createArrayOf("int8", failed.stream().map(f -> f.retryAfter().toMillis()).toArray()));
        ps.setArray(4, c.createArrayOf("text", failed.stream().map(FailedPublish::error).toArray()));
        int i = 5;
        if (deadLetters) {
          ps.setArray(i++, c.createArrayOf("bool", failed.stream().map(FailedPublish::deadLetter).toArray()));
        }
        ps.setArray(i, heldArray);
        failedRows = ps.executeUpdate();
      }
    }
    int fenced = (published.size() - completed) + (failed.size() - failedRows);
    return new Completion(completed, failedRows, fenced);
  }

  @Override
  public List<String> inboxRecord(Connection c, String consumer, Map<String, String> hashes) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_RECORD)) {
      ps.setString(1, consumer);
      ps.setArray(2, c.createArrayOf("text", hashes.keySet().toArray()));
      ps.setArray(3, c.createArrayOf("text", hashes.values().toArray()));
      return Rows.firstColumn(ps);
    }
  }

  @Override
  public Map<String, String> inboxHashes(Connection c, String consumer, List<String> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_HASHES)) {
      ps.setString(1, consumer);
      ps.setArray(2, c.createArrayOf("text", ids.toArray()));
      return Rows.firstToSecond(ps);
    }
  }

  /** A text value takes up to 1 GB; beyond a few hundred MB the driver's buffers are the limit. */
  private static final long PARKED_PAYLOAD_BYTES = 256L * 1024 * 1024;

  @Override
  public long inboxMaxParkedPayloadBytes(Connection c) {
    return PARKED_PAYLOAD_BYTES;
  }

  /**
   * The driver knows the server's transaction status from every reply, so this costs no round trip:
   * after an error a handler swallowed, pgjdbc would turn the COMMIT into a ROLLBACK without a word.
   */
  @Override
  public void inboxRequireCommittable(Connection c) throws SQLException {
    if (c.isWrapperFor(BaseConnection.class)
        && c.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED) {
      throw new SQLException("the transaction was aborted by an earlier error (caught and not rethrown?): it cannot"
          + " commit", "25P02");
    }
  }

  @Override
  public int inboxRecordAttempt(Connection c, String consumer, String messageId, String error) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INBOX_ATTEMPT)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.setString(3, StoreRules.storableReason(error)); // an exception's text may hold NUL
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = PgErrors.sqlState(e);
    return "40001".equals(state) || "40P01".equals(state);
  }

  /** The earliest and latest {@code created_at} of the messages; null when one has none. */
  private static Instant[] createdRange(List<OutboxMessage> messages) {
    Instant first = null;
    Instant last = null;
    for (OutboxMessage m : messages) {
      Instant t = m.createdAt();
      if (t == null) {
        return null;
      }
      first = first == null || t.isBefore(first) ? t : first;
      last = last == null || t.isAfter(last) ? t : last;
    }
    return new Instant[] {first, last};
  }

  /** The claim's plan as the relay would run it; for tests that pin the plan to the index. */
  String explainClaim(Connection c, String nodeId, Collection<PartitionLease> leases, int limit) throws SQLException {
    return explainClaim(c, "EXPLAIN " + CLAIM, nodeId, leases, limit);
  }

  /** As {@link #explainClaim}, of the claim on a partitioned outbox, with EXPLAIN's {@code options}. */
  String explainClaimPartitioned(Connection c, String options, String nodeId, Collection<PartitionLease> leases,
      int limit) throws SQLException {
    return explainClaim(c, "EXPLAIN " + options + " " + CLAIM_PARTITIONED, nodeId, leases, limit);
  }

  private String explainClaim(Connection c, String explain, String nodeId, Collection<PartitionLease> leases,
      int limit) throws SQLException {
    prepareClaim(c);
    try (PreparedStatement ps = c.prepareStatement(explain)) {
      ps.setArray(1, intArray(c, leases.stream().map(PartitionLease::partition).toList()));
      ps.setString(2, nodeId);
      ps.setInt(3, limit);
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      return plan.toString();
    }
  }

  @Override
  public boolean isDuplicateMessageId(SQLException e) {
    return "23505".equals(PgErrors.sqlState(e)) && PgErrors.constraintOf(e)
        .map(name -> name.equals("twinbox_outbox_id") || name.equals("twinbox_supplied_id_pkey")).orElse(true);
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return "42P01".equals(e.getSQLState()) || "42703".equals(e.getSQLState());
  }

  private static final String NOTIFY_TRIGGER_ENABLED = """
      SELECT tgenabled <> 'D' FROM pg_trigger
       WHERE tgname = 'twinbox_outbox_notify' AND tgrelid = 'twinbox_outbox'::regclass""";

  @Override
  public boolean commitNotifications(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(NOTIFY_TRIGGER_ENABLED)) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  @Override
  public void setCommitNotifications(Connection c, boolean enabled) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE twinbox_outbox " + (enabled ? "ENABLE" : "DISABLE") + " TRIGGER twinbox_outbox_notify");
    }
  }

  /**
   * LISTENs only when the outbox's notify trigger is enabled (opt-in since schema V3): otherwise
   * the listener would hold a connection for notifications that never come.
   */
  @Override
  public AutoCloseable listen(DataSource dataSource, Runnable callback) {
    try (Connection c = dataSource.getConnection()) {
      if (!commitNotifications(c)) {
        log.info("commit notifications are off (the default); the relay finds new events by polling");
        return () -> {};
      }
    } catch (SQLException e) {
      log.warn("could not check whether commit notifications are on; listening anyway: {}", StoreRules.reason(e));
    }
    return PgNotifyListener.start(dataSource, CHANNEL, callback);
  }

  private static void bindLeases(Connection c, PreparedStatement ps, int index, Collection<PartitionLease> leases)
      throws SQLException {
    ps.setArray(index, intArray(c, leases.stream().map(PartitionLease::partition).toList()));
    ps.setArray(index + 1, c.createArrayOf("int8", leases.stream().map(PartitionLease::epoch).toArray()));
  }

  private static Array intArray(Connection c, List<Integer> values) throws SQLException {
    return c.createArrayOf("int4", values.toArray());
  }
}
