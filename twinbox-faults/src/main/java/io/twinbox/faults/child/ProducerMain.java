package io.twinbox.faults.child;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.jdbc.JdbcStore;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The application of a fault run, in its own JVM: writer threads that each insert order rows and
 * their outbox events (1–3 per transaction) in one transaction, and commit — or roll back a share,
 * half explicitly and half failing at {@code COMMIT} (FAULTS A1): on PostgreSQL through a deferred
 * unique constraint; on MariaDB, which has no deferrable constraints, by killing the transaction's
 * own connection ({@code KILL CONNECTION_ID()}) just before {@code COMMIT}, so that the server rolls
 * it back and the commit fails. A transaction whose connection is lost otherwise (the database
 * killed and restarted, FAULTS B9) is abandoned and the writer goes on with a new connection: its
 * outcome is whatever the database says (the ledger is in the same transaction). The committed ledger is the {@code orders} table itself (one row per event, with the
 * sequence the store assigned), written in the same transaction, so it is exact even if this JVM
 * dies; the ids of rolled-back events are appended to a file after each rollback. Killed -9 and
 * started again (FAULTS E1), it writes only the events left: the ledger's rows and the file's ids
 * are done, and a transaction the kill cut off is whatever the database made of it.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <events> <aggregates> <writers> <rollback
 * rate> <events per second> <seed> <poison rate> <rolled-back file>}. Prints {@value #DONE} when
 * all events are written.
 */
public final class ProducerMain {
  public static final String DONE = "PRODUCER-DONE";
  /** Printed for each transaction abandoned after its connection was lost. */
  public static final String ABANDONED = "PRODUCER-ABANDONED";
  public static final String AGGREGATE_TYPE = "Order";

  private ProducerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 11) {
      throw new IllegalArgumentException("usage: ProducerMain <jdbc url> <user> <password> <events>"
          + " <aggregates> <writers> <rollback rate> <per second> <seed> <poison rate> <rolled-back file>");
    }
    int total = Integer.parseInt(args[3]);
    int aggregates = Integer.parseInt(args[4]);
    int writers = Integer.parseInt(args[5]);
    double rollbackRate = Double.parseDouble(args[6]);
    double perSecond = Double.parseDouble(args[7]);
    long baseSeed = Long.parseLong(args[8]);
    double poisonRate = Double.parseDouble(args[9]);
    boolean mariadb = Pools.isMariaDb(args[0]);
    HikariDataSource ds = Pools.open(args[0], args[1], args[2], "faults-producer", writers + 1);
    Outbox outbox = Outbox.builder(JdbcStore.builder(ds).build()).build();
    // A producer killed -9 and started again goes on with the events left: those of committed
    // transactions (the ledger) and of rolled-back ones (the file) are done; a transaction cut off
    // by the kill is whatever the database made of it (committed: in the ledger; else gone).
    int done = written(ds, Path.of(args[10]));
    FileOutputStream rolledBack = new FileOutputStream(args[10], true);
    int events = Math.max(0, total - done);
    long seed = done == 0 ? baseSeed : baseSeed * 7919 + done;
    AtomicInteger left = new AtomicInteger(events);
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      Random random = new Random(seed * 31 + w);
      Thread t = new Thread(() -> {
        try {
          while (true) {
            int want = 1 + (random.nextInt(10) < 7 ? 0 : random.nextInt(2) + 1);
            int before = left.getAndAdd(-want);
            if (before <= 0) {
              return;
            }
            int n = Math.min(want, before);
            if (perSecond > 0) {
              long due = start + (long) ((events - before + n) / perSecond * 1e9);
              long wait = due - System.nanoTime();
              if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
              }
            }
            attempt(ds, outbox, random, n, aggregates, rollbackRate, poisonRate, rolledBack, mariadb);
          }
        } catch (Exception e) {
          e.printStackTrace();
          Runtime.getRuntime().halt(3);
        }
      }, "writer-" + w);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    System.out.println(DONE);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** Events already written by earlier starts: the ledger's rows plus the rolled-back file's ids. */
  private static int written(DataSource ds, Path rolledBackFile) throws SQLException, IOException {
    int rolledBack = 0;
    if (Files.exists(rolledBackFile)) {
      for (String line : Files.readAllLines(rolledBackFile, StandardCharsets.US_ASCII)) {
        if (line.length() == 36) {
          rolledBack++;
        }
      }
    }
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM orders")) {
      rs.next();
      return rs.getInt(1) + rolledBack;
    }
  }

  /** One transaction on a connection of its own; a lost connection abandons it (see the class doc). */
  private static void attempt(DataSource ds, Outbox outbox, Random random, int n, int aggregates,
      double rollbackRate, double poisonRate, FileOutputStream rolledBackFile, boolean mariadb)
      throws SQLException, IOException, InterruptedException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      transaction(c, outbox, random, n, aggregates, rollbackRate, poisonRate, rolledBackFile, mariadb);
    } catch (SQLException | RuntimeException e) {
      SQLException sql = sqlCause(e);
      if (sql == null || !lostConnection(sql) && !outOfResources(sql)) {
        throw e;
      }
      System.out.println(ABANDONED + " " + sql.getClass().getSimpleName() + " " + sql.getSQLState());
      System.out.flush();
      Thread.sleep(200);
    }
  }

  /** The SQLException in {@code e}'s cause chain (the store wraps them), or null. */
  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /**
   * The server is out of a resource (SQLSTATE class 53: {@code 53100} disk full, FAULTS disk-full
   * row): the transaction failed and is abandoned, as an application would fail that request.
   */
  private static boolean outOfResources(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("53");
  }

  /** The connection or the server went away (SQLSTATE classes 08 and 57P, or the pool timed out). */
  private static boolean lostConnection(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLTransientConnectionException
        || state != null && (state.startsWith("08") || state.startsWith("57P"));
  }

  private static void transaction(Connection c, Outbox outbox, Random random, int n, int aggregates,
      double rollbackRate, double poisonRate, FileOutputStream rolledBackFile, boolean mariadb)
      throws SQLException, IOException {
    List<OutboxEvent> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      if (random.nextDouble() < poisonRate) {
        batch.add(OutboxEvent.builder("Poison", 1).unordered(AGGREGATE_TYPE)
            .payload("{\"poison\":true}").build());
      } else {
        String aggregate = "order-" + random.nextInt(aggregates);
        batch.add(OutboxEvent.builder("OrderChanged", 1).aggregate(AGGREGATE_TYPE, aggregate)
            .payload("{\"aggregate\":\"" + aggregate + "\"}").build());
      }
    }
    boolean rollback = random.nextDouble() < rollbackRate;
    boolean failAtCommit = rollback && random.nextBoolean();
    List<UUID> ids;
    try {
      ids = outbox.writeAll(c, batch);
      Map<UUID, Long> sequences = sequences(c, ids, mariadb);
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO orders (message_id, aggregate_id, sequence, poison) VALUES (?, ?, ?, ?)")) {
        for (int i = 0; i < n; i++) {
          ps.setObject(1, mariadb ? ids.get(i).toString() : ids.get(i));
          ps.setString(2, batch.get(i).aggregateId());
          ps.setLong(3, sequences.get(ids.get(i)));
          ps.setBoolean(4, "Poison".equals(batch.get(i).type()));
          ps.addBatch();
        }
        ps.executeBatch();
      }
      if (failAtCommit && mariadb) {
        // No deferrable constraints: the session kills itself, the server rolls the transaction back.
        try (Statement st = c.createStatement()) {
          st.execute("KILL CONNECTION_ID()");
        } catch (SQLException expected) {
          // "Connection was killed" (1927): the COMMIT below fails.
        }
      } else if (failAtCommit) {
        // Two equal values in a DEFERRABLE INITIALLY DEFERRED unique column: COMMIT fails.
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO commit_bomb (ref) VALUES (?), (?)")) {
          long ref = random.nextLong();
          ps.setLong(1, ref);
          ps.setLong(2, ref);
          ps.executeUpdate();
        }
      }
    } catch (SQLException | RuntimeException e) {
      quietRollback(c);
      throw e;
    }
    if (rollback && !failAtCommit) {
      c.rollback();
    } else {
      try {
        c.commit();
        if (failAtCommit) {
          throw new IllegalStateException("the deferred constraint did not fail the commit");
        }
        return;
      } catch (SQLException e) {
        if (!failAtCommit) {
          throw e; // lost connection: abandoned; anything else stops the run rather than guess an outcome
        }
        quietRollback(c);
      }
    }
    StringBuilder lines = new StringBuilder();
    for (UUID id : ids) {
      lines.append(id).append('\n');
    }
    synchronized (rolledBackFile) {
      rolledBackFile.write(lines.toString().getBytes(StandardCharsets.US_ASCII));
    }
  }

  private static void quietRollback(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // The connection is gone: the server rolls back by itself.
    }
  }

  private static Map<UUID, Long> sequences(Connection c, List<UUID> ids, boolean mariadb) throws SQLException {
    Map<UUID, Long> result = new HashMap<>();
    String marks = String.join(", ", Collections.nCopies(ids.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement("SELECT id, sequence FROM twinbox_outbox WHERE id IN (" + marks
        + ")")) {
      if (!mariadb) {
        // Planned afresh each time. A server-prepared statement keeps the generic plan it got in
        // the run's first seconds, on an empty table: a sequential scan. With autovacuum off (the
        // shared server) no ANALYZE ever invalidates it, so every write read the whole outbox —
        // 0.9 of the 2 cores by the 10th minute of the soak, and the rate fell from 480 to 125/s.
        ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
      }
      for (int i = 0; i < ids.size(); i++) {
        ps.setObject(i + 1, mariadb ? ids.get(i).toString() : ids.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          result.put(UUID.fromString(rs.getString(1)), rs.getLong(2));
        }
      }
    }
    if (result.size() != ids.size()) {
      throw new IllegalStateException("wrote " + ids.size() + " events but found " + result.size());
    }
    return result;
  }
}
