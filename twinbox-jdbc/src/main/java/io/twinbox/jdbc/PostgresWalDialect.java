package io.twinbox.jdbc;

import io.twinbox.spi.ChangeFeedStore.TableGroup;
import io.twinbox.spi.GroupKey;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The SQL of the WAL relay on PostgreSQL 12+: server settings, the publication and the slot, slot
 * lag, and the few reads the stream needs from the outbox table. The companion of {@link
 * PostgresDialect} for this concern; like it, it runs statements on the connection it is given and
 * classifies nothing by message text. Names passed in are validated by the caller (lower-case
 * letters, digits, underscores); schema names are quoted.
 *
 * <p>Stateless and thread-safe: use {@link #INSTANCE}.
 */
public final class PostgresWalDialect {
  public static final PostgresWalDialect INSTANCE = new PostgresWalDialect();

  /** What the server allows this role to do, read in one statement. */
  public record Setup(String walLevel, int maxSlots, int usedSlots, boolean replication, String user,
      String database, String schema, String serverEncoding, int serverVersion) {}

  /** A publication as the catalog shows it, judged against the outbox table of {@code schema}. */
  public record Publication(boolean insert, boolean update, boolean delete, boolean truncate, boolean allTables,
      long tables, boolean hasOutbox, boolean filtered) {

    /** Publishes the outbox's inserts and nothing else, without row filter or column list. */
    public boolean exact() {
      return insert && !update && !delete && !truncate && !allTables && tables == 1 && hasOutbox && !filtered;
    }
  }

  /** A replication slot of any kind, by name. */
  /** @param confirmedLsn the confirmed position the server holds, -1 when none yet */
  public record Slot(String plugin, String type, String database, boolean active, int activePid, String walStatus,
      long confirmedLsn) {}

  private static final String SETUP = """
      SELECT current_setting('wal_level'), current_setting('max_replication_slots')::int,
             (SELECT count(*) FROM pg_replication_slots)::int,
             (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user),
             current_user, current_database(), current_schema(), current_setting('server_encoding'),
             current_setting('server_version_num')::int""";

  private static final String PUBLICATION = """
      SELECT p.pubinsert, p.pubupdate, p.pubdelete, p.pubtruncate, p.puballtables,
             (SELECT count(*) FROM pg_publication_tables t WHERE t.pubname = p.pubname),
             EXISTS (SELECT 1 FROM pg_publication_tables t
                      WHERE t.pubname = p.pubname AND t.schemaname = ? AND t.tablename = 'twinbox_outbox'),
             COALESCE((SELECT (to_jsonb(r) ->> 'prqual') IS NOT NULL OR (to_jsonb(r) ->> 'prattrs') IS NOT NULL
                         FROM pg_publication_rel r
                        WHERE r.prpubid = p.oid AND r.prrelid = to_regclass(format('%I.%I', ?, 'twinbox_outbox'))),
                      false)
        FROM pg_publication p WHERE p.pubname = ?""";

  private static final String SLOT = """
      SELECT s.plugin, s.slot_type, s.database, s.active, COALESCE(s.active_pid, 0), to_jsonb(s) ->> 'wal_status',
             COALESCE((s.confirmed_flush_lsn - '0/0'::pg_lsn)::bigint, -1)
        FROM pg_replication_slots s WHERE s.slot_name = ?""";

  private static final String CREATE_SLOT = "SELECT slot_name FROM pg_create_logical_replication_slot(?, 'pgoutput')";

  private static final String DROP_SLOT = "SELECT pg_drop_replication_slot(?)";

  private static final String TERMINATE = "SELECT pg_terminate_backend(?)";

  private static final String SLOTS = """
      SELECT s.slot_name, s.database, s.active, COALESCE(s.active_pid, 0), COALESCE(s.confirmed_flush_lsn::text, ''),
             COALESCE((pg_current_wal_lsn() - s.confirmed_flush_lsn)::bigint, -1),
             COALESCE((pg_current_wal_lsn() - s.restart_lsn)::bigint, -1),
             COALESCE(to_jsonb(s) ->> 'wal_status', '')
        FROM pg_replication_slots s
       WHERE s.slot_type = 'logical' AND s.plugin = 'pgoutput' AND s.slot_name LIKE 'twinbox%'
       ORDER BY s.slot_name""";

  private static final String LAG = """
      SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = ?""";

  /** Of the given positions, those of rows still in the table and not PUBLISHED (on the primary key). */
  private static final String UNPUBLISHED = """
      SELECT position FROM twinbox_outbox WHERE position = ANY(?::bigint[]) AND status <> 'PUBLISHED'""";

  /** Groups with rows that are not PUBLISHED, and the highest sequence of each: where a new stream starts. */
  private static final String GROUPS_IN_TABLE = """
      SELECT aggregate_type, COALESCE(aggregate_id, id::text), aggregate_id IS NOT NULL, min(sequence), max(sequence),
             bool_or(status = 'FAILED' OR attempts > 0)
        FROM (SELECT aggregate_type, aggregate_id, id, sequence, status, attempts FROM twinbox_outbox
               WHERE status = 'PENDING'
              UNION ALL
              SELECT aggregate_type, aggregate_id, id, sequence, status, attempts FROM twinbox_outbox
               WHERE status = 'FAILED') r
       GROUP BY 1, 2, 3""";

  /**
   * The outbox's statistics say "empty" most of the time: keep the read on the partial pending and
   * held indexes (as the claim does), not on a sequential scan of a table full of deleted rows.
   */
  private static final String INDEXED_READ_SETTINGS =
      "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off";

  /** Of the given groups, those held back by a FAILED or retrying row (on the outbox's held index). */
  private static final String HELD_GROUPS = """
      SELECT DISTINCT o.aggregate_type, o.aggregate_id, true
        FROM twinbox_outbox o JOIN unnest(?::text[], ?::text[]) AS k(t, a)
          ON o.aggregate_type = k.t AND o.aggregate_id = k.a
       WHERE o.status = 'FAILED' OR (o.status = 'PENDING' AND o.attempts > 0)
      UNION ALL
      SELECT o.aggregate_type, o.id::text, false FROM twinbox_outbox o
       WHERE o.aggregate_id IS NULL AND o.id = ANY(?::uuid[])
         AND (o.status = 'FAILED' OR (o.status = 'PENDING' AND o.attempts > 0))""";

  /** Of the given 32-bit transaction ids, those in progress in this statement's snapshot. */
  private static final String IN_PROGRESS = """
      SELECT x FROM unnest(?::bigint[]) AS x
       WHERE x IN (SELECT s & 4294967295 FROM txid_snapshot_xip(txid_current_snapshot()) AS s)""";

  private static final String CURRENT_POSITION = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint";

  private PostgresWalDialect() {}

  public Setup setup(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(SETUP)) {
      rs.next();
      return new Setup(rs.getString(1), rs.getInt(2), rs.getInt(3), rs.getBoolean(4), rs.getString(5),
          rs.getString(6), rs.getString(7), rs.getString(8), rs.getInt(9));
    }
  }

  public Optional<Publication> publication(Connection c, String name, String schema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PUBLICATION)) {
      ps.setString(1, schema);
      ps.setString(2, schema);
      ps.setString(3, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new Publication(rs.getBoolean(1), rs.getBoolean(2), rs.getBoolean(3), rs.getBoolean(4),
            rs.getBoolean(5), rs.getLong(6), rs.getBoolean(7), rs.getBoolean(8)));
      }
    }
  }

  /**
   * The statement that creates the publication; also quoted in error messages as the fix. From
   * PostgreSQL 13 on, with {@code publish_via_partition_root = true}: a partitioned outbox (see
   * docs/partitioned-outbox.md) then streams its inserts as rows of {@code twinbox_outbox}, not of
   * its partitions; on a plain table the option changes nothing.
   */
  public String createPublicationSql(String name, String schema, int serverVersion) {
    return "CREATE PUBLICATION " + name + " FOR TABLE " + quote(schema) + ".twinbox_outbox WITH (publish = 'insert'"
        + (serverVersion >= 130000 ? ", publish_via_partition_root = true)" : ")");
  }

  public void createPublication(Connection c, String name, String schema, int serverVersion) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(createPublicationSql(name, schema, serverVersion));
    }
  }

  public void dropPublication(Connection c, String name) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("DROP PUBLICATION IF EXISTS " + name);
    }
  }

  public Optional<Slot> slot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SLOT)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new Slot(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
            rs.getInt(5), rs.getString(6), rs.getLong(7)));
      }
    }
  }

  /** Creates the slot; waits for transactions running now to end (a consistent start point). */
  public void createSlot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CREATE_SLOT)) {
      ps.setString(1, name);
      ps.executeQuery().close();
    }
  }

  public void dropSlot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(DROP_SLOT)) {
      ps.setString(1, name);
      ps.executeQuery().close();
    }
  }

  /** Ends a server process (the walsender of a relay that lost its lease); true if signalled. */
  public boolean terminate(Connection c, int pid) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(TERMINATE)) {
      ps.setInt(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  public List<WalSlot> slots(Connection c) throws SQLException {
    List<WalSlot> out = new ArrayList<>();
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(SLOTS)) {
      while (rs.next()) {
        out.add(new WalSlot(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getInt(4), rs.getString(5),
            rs.getLong(6), rs.getLong(7), rs.getString(8)));
      }
    }
    return out;
  }

  /** WAL behind the slot's confirmed position in bytes, or -1 when there is no such slot. */
  public long lagBytes(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LAG)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  /** Runs in a transaction of the caller (its settings are transaction-local). */
  public Map<GroupKey, TableGroup> groupsInTable(Connection c) throws SQLException {
    Map<GroupKey, TableGroup> out = new HashMap<>();
    try (Statement settings = c.createStatement()) {
      settings.execute(INDEXED_READ_SETTINGS);
    }
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(GROUPS_IN_TABLE)) {
      while (rs.next()) {
        out.put(new GroupKey(rs.getString(1), rs.getString(2), rs.getBoolean(3)),
            new TableGroup(rs.getLong(4), rs.getLong(5), rs.getBoolean(6)));
      }
    }
    return out;
  }

  public Set<GroupKey> heldGroups(Connection c, Collection<GroupKey> groups) throws SQLException {
    List<String> types = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<UUID> unordered = new ArrayList<>();
    for (GroupKey g : groups) {
      if (g.ordered()) {
        types.add(g.aggregateType());
        ids.add(g.key());
      } else {
        unordered.add(UUID.fromString(g.key()));
      }
    }
    Set<GroupKey> out = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(HELD_GROUPS)) {
      ps.setArray(1, c.createArrayOf("text", types.toArray()));
      ps.setArray(2, c.createArrayOf("text", ids.toArray()));
      ps.setArray(3, c.createArrayOf("uuid", unordered.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new GroupKey(rs.getString(1), rs.getString(2), rs.getBoolean(3)));
        }
      }
    }
    return out;
  }

  public Set<Long> unpublished(Connection c, Collection<Long> positions) throws SQLException {
    Set<Long> out = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(UNPUBLISHED)) {
      ps.setArray(1, c.createArrayOf("int8", positions.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  public Set<Long> inProgress(Connection c, Collection<Long> xids) throws SQLException {
    Set<Long> out = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(IN_PROGRESS)) {
      Array array = c.createArrayOf("int8", xids.toArray());
      ps.setArray(1, array);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  public long currentPosition(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(CURRENT_POSITION)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }
}
