package io.twinbox.jdbc.internal.wal;

import io.twinbox.ChangeFeedException;
import io.twinbox.ChangeFeedException.Problem;
import io.twinbox.StoreException;
import io.twinbox.spi.StoreRules;
import io.twinbox.jdbc.PostgresWalDialect;
import io.twinbox.jdbc.PostgresWalDialect.Publication;
import io.twinbox.jdbc.PostgresWalDialect.Setup;
import io.twinbox.jdbc.PostgresWalDialect.Slot;
import io.twinbox.jdbc.WalSlot;
import io.twinbox.jdbc.internal.PgErrors;
import io.twinbox.spi.ChangeFeed;
import io.twinbox.spi.ChangeFeedStore.TableGroup;
import io.twinbox.spi.GroupKey;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's PostgreSQL side: checks the server, manages the publication and the slot, and
 * opens {@link PgReplicationFeed}s. Every problem an operator must fix is a {@link
 * ChangeFeedException} that names the fix; the checks run before anything is created, and a
 * publication created by a start that then fails is dropped again.
 *
 * <p>Thread-safe.
 */
public final class PostgresChangeFeeds {
  private static final Logger log = LoggerFactory.getLogger(PostgresChangeFeeds.class);
  private static final PostgresWalDialect SQL = PostgresWalDialect.INSTANCE;
  /** How long a stale consumer of the slot gets to go after it was told to end. */
  private static final long TERMINATE_WAIT_MS = 10_000;

  private final DataSource dataSource;
  private final ReplicationLogin login;
  private final int partitions;

  public PostgresChangeFeeds(DataSource dataSource, ReplicationLogin login, int partitions) {
    this.dataSource = dataSource;
    this.login = login;
    this.partitions = partitions;
  }

  /** {@code twinbox_<database>} (plus {@code _<schema>} outside {@code public}), made a valid slot name. */
  public String defaultName() {
    Setup s = read("read the database name", SQL::setup);
    String name = "twinbox_" + s.database() + (s.schema().equals("public") ? "" : "_" + s.schema());
    name = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return name.length() > 63 ? name.substring(0, 63) : name;
  }

  /** Checks the server and creates or reuses the publication and the slot (see the SPI). */
  public void prepare(String name) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      prepare(c, name, true);
    } catch (SQLException e) {
      throw new StoreException("could not check the change feed setup (SQLSTATE " + e.getSQLState() + ")", e);
    }
  }

  /** @param mayCreateSlot false when the slot must exist already (a relay that started streams it) */
  private Setup prepare(Connection c, String name, boolean mayCreateSlot) throws SQLException {
    Setup s = SQL.setup(c);
    if (!"logical".equals(s.walLevel())) {
      throw new ChangeFeedException(Problem.WAL_LEVEL, "wal_level is '" + s.walLevel() + "' but the WAL relay needs"
          + " 'logical': run ALTER SYSTEM SET wal_level = logical (or set it in postgresql.conf) and restart the"
          + " server; until then use the polling relay (RelayMode.POLLING, the default). Nothing was created.");
    }
    if (!s.replication()) {
      throw new ChangeFeedException(Problem.NO_REPLICATION_PRIVILEGE, "role " + s.user() + " has neither"
          + " REPLICATION nor superuser: run ALTER ROLE " + s.user() + " REPLICATION (and let pg_hba.conf admit its"
          + " connections to database " + s.database() + "). Nothing was created.");
    }
    boolean created = ensurePublication(c, name, s);
    try {
      ensureSlot(c, name, s, mayCreateSlot);
    } catch (RuntimeException | SQLException e) {
      if (created) {
        try {
          SQL.dropPublication(c, name);
        } catch (SQLException de) {
          e.addSuppressed(de);
        }
      }
      throw e;
    }
    return s;
  }

  /** True when this call created the publication. */
  private boolean ensurePublication(Connection c, String name, Setup s) throws SQLException {
    Optional<Publication> p = SQL.publication(c, name, s.schema());
    if (p.isPresent()) {
      checkExact(p.get(), name, s);
      return false;
    }
    try {
      SQL.createPublication(c, name, s.schema(), s.serverVersion());
      log.info("created publication {} for the inserts of {}.twinbox_outbox", name, s.schema());
      return true;
    } catch (SQLException e) {
      String state = PgErrors.sqlState(e);
      if ("42710".equals(state)) { // created by another relay meanwhile
        checkExact(SQL.publication(c, name, s.schema()).orElseThrow(() -> e), name, s);
        return false;
      }
      if ("42501".equals(state)) {
        throw new ChangeFeedException(Problem.PUBLICATION_MISSING, "publication " + name + " does not exist and role "
            + s.user() + " may not create it (SQLSTATE 42501): as the owner of " + s.schema() + ".twinbox_outbox run "
            + SQL.createPublicationSql(name, s.schema(), s.serverVersion()) + ". Nothing was created.", e);
      }
      throw e;
    }
  }

  private static void checkExact(Publication p, String name, Setup s) {
    if (!p.exact()) {
      throw new ChangeFeedException(Problem.PUBLICATION_ALTERED, "publication " + name + " must publish only the"
          + " inserts of " + s.schema() + ".twinbox_outbox, without row filter or column list, but it has insert="
          + p.insert() + " update=" + p.update() + " delete=" + p.delete() + " truncate=" + p.truncate()
          + " allTables=" + p.allTables() + " tables=" + p.tables() + " outbox=" + p.hasOutbox() + " filtered="
          + p.filtered() + ": run DROP PUBLICATION " + name + " (the relay recreates it) or fix it with ALTER"
          + " PUBLICATION. Nothing was created.");
    }
  }

  private void ensureSlot(Connection c, String name, Setup s, boolean mayCreate) throws SQLException {
    Optional<Slot> slot = SQL.slot(c, name);
    if (slot.isPresent()) {
      checkSlot(slot.get(), name, s);
      return;
    }
    if (!mayCreate) {
      throw new ChangeFeedException(Problem.SLOT_LOST, "replication slot " + name + " no longer exists: it was"
          + " dropped while the relay ran. A new slot would start at the current end of the WAL, past changes the"
          + " relay has not read, so the relay does not create one. Every event not yet published is still in the"
          + " outbox table: start the relays again (Relay.start() creates a new slot and publishes those rows"
          + " through the sweep) or run the polling relay.");
    }
    if (s.usedSlots() >= s.maxSlots()) {
      throw exhausted(name, s, null);
    }
    try {
      SQL.createSlot(c, name);
      log.info("created replication slot {} (pgoutput) for database {}", name, s.database());
    } catch (SQLException e) {
      String state = PgErrors.sqlState(e);
      if ("42710".equals(state)) { // created by another relay meanwhile
        checkSlot(SQL.slot(c, name).orElseThrow(() -> e), name, s);
        return;
      }
      if ("53400".equals(state)) {
        throw exhausted(name, s, e);
      }
      if ("55000".equals(state)) {
        throw new ChangeFeedException(Problem.WAL_LEVEL, "the server refused to create logical slot " + name
            + " (SQLSTATE 55000, object not in prerequisite state): check that wal_level = logical took effect"
            + " (restart after changing it).", e);
      }
      if ("42501".equals(state)) {
        throw new ChangeFeedException(Problem.NO_REPLICATION_PRIVILEGE, "role " + s.user() + " may not create"
            + " replication slots (SQLSTATE 42501): run ALTER ROLE " + s.user() + " REPLICATION.", e);
      }
      throw e;
    }
  }

  private static ChangeFeedException exhausted(String name, Setup s, Throwable cause) {
    return new ChangeFeedException(Problem.SLOTS_EXHAUSTED, "cannot create replication slot " + name + ": all "
        + s.maxSlots() + " slots allowed by max_replication_slots are in use. Drop an unused one (SELECT slot_name,"
        + " active FROM pg_replication_slots; SELECT pg_drop_replication_slot('<name>')) or raise"
        + " max_replication_slots and restart the server. Nothing was created.", cause);
  }

  private static void checkSlot(Slot slot, String name, Setup s) {
    if (!"logical".equals(slot.type()) || !"pgoutput".equals(slot.plugin()) || !s.database().equals(slot.database())) {
      throw new ChangeFeedException(Problem.SLOT_MISMATCH, "replication slot " + name + " exists but is a "
          + slot.type() + " slot of plugin " + slot.plugin() + " for database " + slot.database() + "; the WAL relay"
          + " needs a logical pgoutput slot for database " + s.database() + ": choose another name"
          + " (Relay.Builder.walSlot) or drop that slot.");
    }
    if ("lost".equals(slot.walStatus())) {
      throw new ChangeFeedException(Problem.SLOT_LOST, "replication slot " + name + " was invalidated by the server"
          + " (wal_status = lost: WAL it needed was removed, see max_slot_wal_keep_size). Drop it"
          + " (JdbcStore.dropWalSlot(\"" + name + "\")) and start again: every event not yet published is still in"
          + " the outbox table and is published from there; or run the polling relay meanwhile.");
    }
  }

  /**
   * Opens a feed: setup checked, a stale consumer of the slot ended (the caller holds the stream
   * lease), streaming started from the slot's confirmed position.
   */
  public ChangeFeed open(String name, BooleanSupplier mayConfirm, int maxBuffered) {
    Setup s;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      s = prepare(c, name, false); // the relay's start made the slot; one missing now was dropped
      endStaleConsumer(c, name);
    } catch (SQLException e) {
      throw new StoreException("could not prepare slot " + name + " (SQLSTATE " + e.getSQLState() + ")", e);
    }
    Connection replication = login.connect(dataSource);
    try {
      PGReplicationStream stream = start(replication, name);
      PgoutputDecoder decoder = new PgoutputDecoder(s.schema(), new OutboxRowDecoder(partitions, charset(s)));
      return new PgReplicationFeed(name, replication, stream, decoder, mayConfirm, () -> lagBytes(name),
          () -> confirmedPosition(name), maxBuffered);
    } catch (RuntimeException e) {
      try {
        replication.close();
      } catch (SQLException ce) {
        e.addSuppressed(ce);
      }
      throw e;
    }
  }

  private static PGReplicationStream start(Connection replication, String name) {
    try {
      return replication.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
          .withSlotName(name)
          .withSlotOption("proto_version", "1")
          .withSlotOption("publication_names", name)
          .withStatusInterval(1, TimeUnit.SECONDS)
          .withAutomaticFlush(false)
          .start();
    } catch (SQLException e) {
      if ("55006".equals(PgErrors.sqlState(e))) {
        throw new ChangeFeedException(Problem.SLOT_IN_USE, "replication slot " + name + " was taken by another"
            + " process while this relay started; it will try again.", e);
      }
      throw new StoreException("could not start streaming slot " + name + " (SQLSTATE " + e.getSQLState() + ")", e);
    }
  }

  /**
   * The slot allows one consumer. Only the lease holder gets here, so a consumer still attached is a
   * relay that lost the lease (paused, cut off) or a leftover walsender of a killed one: end it.
   */
  private static void endStaleConsumer(Connection c, String name) throws SQLException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERMINATE_WAIT_MS);
    boolean told = false;
    while (true) {
      Optional<Slot> slot = SQL.slot(c, name);
      if (slot.isEmpty() || !slot.get().active()) {
        return;
      }
      int pid = slot.get().activePid();
      if (!told) {
        try {
          told = SQL.terminate(c, pid);
        } catch (SQLException e) {
          if ("42501".equals(PgErrors.sqlState(e))) {
            throw new ChangeFeedException(Problem.SLOT_IN_USE, "replication slot " + name + " is in use by server"
                + " process " + pid + ", which this role may not end (SQLSTATE 42501): stop that consumer, or grant"
                + " this role pg_signal_backend.", e);
          }
          throw e;
        }
        log.warn("slot {} was still consumed by server process {} (a relay that lost the lease); ended it", name, pid);
      }
      if (System.nanoTime() > deadline) {
        throw new ChangeFeedException(Problem.SLOT_IN_USE, "replication slot " + name + " is still in use by server"
            + " process " + pid + " " + TERMINATE_WAIT_MS + " ms after it was told to end: check that process.");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for slot " + name + " to be free", e);
      }
    }
  }

  /** Lag of the slot in bytes; -1 when it cannot be read. */
  public long lagBytes(String name) {
    try {
      return read("read the slot lag", c -> SQL.lagBytes(c, name));
    } catch (RuntimeException e) {
      log.debug("cannot read the lag of slot {}: {}", name, StoreRules.reason(e));
      return -1;
    }
  }

  /** The slot's confirmed position as the server holds it; -1 when it cannot be read. */
  long confirmedPosition(String name) {
    try {
      return read("read the slot's confirmed position", c -> SQL.slot(c, name).map(Slot::confirmedLsn).orElse(-1L));
    } catch (RuntimeException e) {
      log.debug("cannot read the confirmed position of slot {}: {}", name, StoreRules.reason(e));
      return -1;
    }
  }

  /** Twinbox's slots on this server (logical pgoutput slots named twinbox…). */
  public List<WalSlot> slots() {
    return read("list the replication slots", SQL::slots);
  }

  /**
   * Drops a Twinbox slot and, in this database, its publication. Returns false when no such slot
   * exists.
   *
   * @throws ChangeFeedException ({@code SLOT_IN_USE}) while a relay streams it: stop the relays first
   */
  public boolean drop(String name) {
    if (!name.startsWith("twinbox")) {
      throw new IllegalArgumentException("only Twinbox's slots (named twinbox…) can be dropped here, was '" + name + "'");
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      Optional<Slot> slot = SQL.slot(c, name);
      if (slot.isPresent()) {
        try {
          SQL.dropSlot(c, name);
        } catch (SQLException e) {
          if ("55006".equals(PgErrors.sqlState(e))) {
            throw new ChangeFeedException(Problem.SLOT_IN_USE, "replication slot " + name + " is in use by server"
                + " process " + slot.get().activePid() + ": stop the WAL relays first.", e);
          }
          throw e;
        }
        log.info("dropped replication slot {}", name);
      }
      SQL.dropPublication(c, name);
      return slot.isPresent();
    } catch (SQLException e) {
      throw new StoreException("could not drop slot " + name + " (SQLSTATE " + e.getSQLState() + ")", e);
    }
  }

  public Map<GroupKey, TableGroup> groupsInTable() {
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        Map<GroupKey, TableGroup> groups = SQL.groupsInTable(c);
        c.commit();
        return groups;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the groups in the outbox (SQLSTATE " + e.getSQLState() + ")", e);
    }
  }

  public Set<GroupKey> heldGroups(Collection<GroupKey> groups) {
    return read("read held groups", c -> SQL.heldGroups(c, groups));
  }

  public Set<Long> unpublished(Collection<Long> positions) {
    return read("read unpublished rows", c -> SQL.unpublished(c, positions));
  }

  public Set<Long> inProgress(Collection<Long> xids) {
    return read("read transactions in progress", c -> SQL.inProgress(c, xids));
  }

  public long currentPosition() {
    return read("read the WAL position", SQL::currentPosition);
  }

  private interface Read<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T read(String what, Read<T> work) {
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        try {
          T result = work.run(c);
          c.commit();
          return result;
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        }
      }
      return work.run(c);
    } catch (SQLException e) {
      throw new StoreException("could not " + what + " (SQLSTATE " + e.getSQLState() + ")", e);
    }
  }

  private static Charset charset(Setup s) {
    String e = s.serverEncoding().toUpperCase(Locale.ROOT);
    return switch (e) {
      case "UTF8" -> StandardCharsets.UTF_8;
      case "LATIN1" -> StandardCharsets.ISO_8859_1;
      case "SQL_ASCII" -> StandardCharsets.US_ASCII;
      default -> {
        try {
          yield Charset.forName(e.startsWith("WIN") ? "windows-" + e.substring(3) : e);
        } catch (RuntimeException unknown) {
          log.warn("server encoding {} has no Java charset; partitions of non-ASCII keys may differ from the"
              + " table's (only the message's partition field, never routing or order)", e);
          yield StandardCharsets.UTF_8;
        }
      }
    };
  }
}
