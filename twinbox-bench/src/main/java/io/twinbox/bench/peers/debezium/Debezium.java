package io.twinbox.bench.peers.debezium;

import io.twinbox.testkit.PostgresDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Debezium's outbox pattern as its documentation sets it up: the outbox table with the columns
 * the {@code io.debezium.transforms.outbox.EventRouter} SMT expects by default ({@code id,
 * aggregatetype, aggregateid, type, payload}), a {@code pgoutput} publication on that table only,
 * a logical replication slot, and the embedded engine's configuration: the PostgreSQL connector,
 * offsets in memory, no snapshot, the EventRouter routing every event to one topic keyed by
 * {@code aggregateid}, with the event id and type in headers.
 */
public final class Debezium {
  private Debezium() {}

  /** The outbox table (Debezium's documented layout). */
  public static final String TABLE = "outbox";
  static final String PUBLICATION = "dbz_outbox";

  public static final String OUTBOX_DDL = """
      CREATE TABLE IF NOT EXISTS outbox (
        id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL,
        type varchar(255) NOT NULL, payload jsonb)""";

  static final String INSERT = "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (?, ?, ?, ?, ?::jsonb)";
  static final String DELETE = "DELETE FROM outbox WHERE id = ?";

  /**
   * How the application writes its events.
   *
   * @param deleteInTx whether each event row is deleted again in the transaction that inserted it
   *     (what Debezium's documentation recommends: the WAL keeps the insert, the table stays empty)
   */
  public record Writes(String name, boolean deleteInTx) {
    public static final Writes INSERT_DELETE = new Writes("debezium", true);
    public static final Writes INSERT_ONLY = new Writes("debezium-keep-rows", false);
  }

  /**
   * The engine's settings.
   *
   * @param pollIntervalMillis {@code poll.interval.ms}: the engine hands over a batch when it holds
   *     {@code max.batch.size} records or this long has passed (default 500)
   * @param maxBatchSize {@code max.batch.size} (default 2048)
   * @param maxQueueSize {@code max.queue.size} (default 8192)
   */
  public record Setup(String name, long pollIntervalMillis, int maxBatchSize, int maxQueueSize) {
    /** Debezium's defaults. */
    public static Setup defaults() {
      return new Setup("debezium", 500, 2048, 8192);
    }

    /** A short poll interval, for latency: what a user tuning for it would set. */
    public static Setup fastPoll(long millis) {
      return new Setup("debezium-poll" + millis + "ms", millis, 2048, 8192);
    }
  }

  /** Creates the outbox table. */
  public static void migrate(DataSource admin) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute(OUTBOX_DDL);
    }
  }

  /**
   * A fresh publication on the outbox table and a fresh {@code pgoutput} slot: from here on every
   * committed outbox change is kept in the WAL for the engine, also while it is not running.
   */
  public static void createSlot(DataSource admin, String slot) throws SQLException {
    dropSlot(admin, slot);
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + TABLE);
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
        ps.setString(1, slot);
        ps.executeQuery().close();
      }
    }
  }

  /** Drops the slot (waiting until its walsender is gone) and the publication, if present. */
  public static void dropSlot(DataSource admin, String slot) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      for (int i = 0; i < 100; i++) {
        try (PreparedStatement ps = c.prepareStatement(
            "SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
          ps.setString(1, slot);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              break;
            }
            if (!rs.getBoolean(1)) {
              try (PreparedStatement drop = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
                drop.setString(1, slot);
                drop.executeQuery().close();
              }
              break;
            }
          }
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted while waiting for slot " + slot + " to be released", e);
        }
      }
      st.execute("DROP PUBLICATION IF EXISTS " + PUBLICATION);
    }
  }

  /** Rows in the outbox table. */
  public static long rows(DataSource admin) throws SQLException {
    try (Connection c = admin.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + TABLE)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The embedded engine's properties for {@code setup}, reading {@code slot}, routing to {@code topic}. */
  public static Properties engineProperties(PostgresDatabase db, Setup setup, String slot, String topic) {
    URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    Properties p = new Properties();
    p.setProperty("name", "twinbox-bench-" + slot);
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    // Offsets (and with them the slot's confirmed LSN) are flushed at most every second, and only
    // up to records the sink marked processed, i.e. acknowledged by Kafka.
    p.setProperty("offset.flush.interval.ms", "1000");
    p.setProperty("database.hostname", uri.getHost());
    p.setProperty("database.port", String.valueOf(uri.getPort()));
    p.setProperty("database.user", db.user());
    p.setProperty("database.password", db.password());
    p.setProperty("database.dbname", db.name());
    p.setProperty("topic.prefix", "bench");
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", slot);
    p.setProperty("publication.name", PUBLICATION);
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("table.include.list", "public." + TABLE);
    // The slot exists before the events are written; the engine streams from it, nothing to snapshot.
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("poll.interval.ms", String.valueOf(setup.pollIntervalMillis()));
    p.setProperty("max.batch.size", String.valueOf(setup.maxBatchSize()));
    p.setProperty("max.queue.size", String.valueOf(setup.maxQueueSize()));
    p.setProperty("transforms", "outbox");
    p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    p.setProperty("transforms.outbox.route.topic.replacement", topic);
    p.setProperty("transforms.outbox.table.fields.additional.placement", "type:header:eventType");
    return p;
  }
}
