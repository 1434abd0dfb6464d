package io.twinbox.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The SQL of the time-partitioned outbox (PostgreSQL, schema script {@code
 * partitioned/P1__outbox_by_time.sql}): whether the outbox is partitioned, creating partitions
 * ahead, and dropping old partitions that hold PUBLISHED rows only. Part of the dialect layer.
 *
 * <p>A drop takes the outbox's ACCESS EXCLUSIVE lock for as long as it checks the partition (on its
 * partial indexes) and detaches and drops it, and never waits longer than {@link #LOCK_WAIT} for
 * the lock (waiting would queue every writer behind it): a busy outbox makes it give up with
 * SQLSTATE 55P03, and the next run tries again. {@code DETACH ... CONCURRENTLY} is not used: it
 * cannot run inside a transaction (so the "only PUBLISHED rows" check could not be atomic with the
 * detach) and PostgreSQL refuses it while a DEFAULT partition exists.
 */
public final class PartitionSql {
  /** The longest wait for a lock that would queue writers behind it. */
  public static final Duration LOCK_WAIT = Duration.ofMillis(500);

  /** The partitions maintenance creates; anything else attached (the DEFAULT one) is never dropped. */
  private static final Pattern OWN_PARTITION = Pattern.compile("twinbox_outbox_[0-9]{8}t[0-9]{6}");

  private static final String IS_PARTITIONED = """
      SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass('twinbox_outbox')""";

  private static final String LOCK_WAIT_SETTING =
      "SET LOCAL lock_timeout = '" + LOCK_WAIT.toMillis() + "ms'";

  /** One creator at a time (relay nodes all maintain); the others find the work done. */
  private static final String CREATE = """
      SELECT CASE WHEN pg_try_advisory_xact_lock(8387236824425740896) THEN twinbox_outbox_create_partitions()
                  ELSE 0 END""";

  private static final String SET_LAYOUT = """
      UPDATE twinbox_outbox_partitioning SET interval_seconds = ?, ahead = ?""";

  private static final String LAYOUT = "SELECT interval_seconds, ahead FROM twinbox_outbox_partitioning";

  /** Partitions whose whole range lies before now minus the age, oldest first. */
  private static final String OLD = """
      SELECT name FROM twinbox_outbox_partitions
       WHERE upper_bound <= clock_timestamp() - ? * interval '1 millisecond'
       ORDER BY upper_bound""";

  private static final String STILL_OLD = """
      SELECT 1 FROM twinbox_outbox_partitions
       WHERE name = ? AND upper_bound <= clock_timestamp() - ? * interval '1 millisecond'""";

  private static final String LOCK_OUTBOX = "LOCK TABLE twinbox_outbox IN ACCESS EXCLUSIVE MODE";

  /** Each arm matches a partial index (pending, held, dead letter): the check never scans the heap. */
  private static final String UNPUBLISHED = """
      SELECT EXISTS (SELECT 1 FROM %1$s WHERE status = 'PENDING')
          OR EXISTS (SELECT 1 FROM %1$s WHERE status = 'FAILED')
          OR EXISTS (SELECT 1 FROM %1$s WHERE dead_letter = 'PENDING')""";

  /** What a drop attempt found. */
  public enum Drop {
    DROPPED,
    /** The partition holds a PENDING or FAILED row (or a pending dead letter): kept. */
    HOLDS_UNPUBLISHED,
    /** Gone meanwhile or no longer old enough. */
    NOT_ELIGIBLE
  }

  public boolean partitioned(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(IS_PARTITIONED)) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /** Creates the partitions from now to {@code ahead} intervals ahead; returns how many were new. */
  public int createAhead(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(LOCK_WAIT_SETTING);
      try (ResultSet rs = st.executeQuery(CREATE)) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  public void setLayout(Connection c, Duration interval, int ahead) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SET_LAYOUT)) {
      ps.setLong(1, interval.toSeconds());
      ps.setInt(2, ahead);
      ps.executeUpdate();
    }
  }

  /** The partition interval in seconds and how many are kept ahead. */
  public long[] layout(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(LAYOUT)) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  /** Twinbox's partitions whose range ended more than {@code age} ago, oldest first. */
  public List<String> older(Connection c, Duration age) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(OLD)) {
      ps.setLong(1, age.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (OWN_PARTITION.matcher(rs.getString(1)).matches()) {
            names.add(rs.getString(1));
          }
        }
      }
    }
    return names;
  }

  public long rows(Connection c, String partition) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + identifier(partition))) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Under the outbox's ACCESS EXCLUSIVE lock (no writer or relay statement runs meanwhile, and every
   * transaction that touched the outbox has ended): checks that the partition is still old enough
   * and holds PUBLISHED rows only, then detaches and drops it. Fails with 55P03 when the lock is
   * not granted within {@link #LOCK_WAIT}.
   */
  public Drop dropIfPublished(Connection c, String partition, Duration age) throws SQLException {
    String table = identifier(partition);
    try (Statement st = c.createStatement()) {
      st.execute(LOCK_WAIT_SETTING);
      st.execute(LOCK_OUTBOX);
    }
    try (PreparedStatement ps = c.prepareStatement(STILL_OLD)) {
      ps.setString(1, partition);
      ps.setLong(2, age.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Drop.NOT_ELIGIBLE;
        }
      }
    }
    try (Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery(String.format(UNPUBLISHED, table))) {
        rs.next();
        if (rs.getBoolean(1)) {
          return Drop.HOLDS_UNPUBLISHED;
        }
      }
      st.execute("ALTER TABLE twinbox_outbox DETACH PARTITION " + table);
      st.execute("DROP TABLE " + table);
    }
    return Drop.DROPPED;
  }

  private static String identifier(String partition) {
    if (!OWN_PARTITION.matcher(partition).matches()) {
      throw new IllegalArgumentException("not a Twinbox outbox partition: " + partition);
    }
    return partition;
  }
}
