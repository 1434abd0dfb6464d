package io.twinbox.testkit;

import io.twinbox.testkit.internal.ChildProcess;
import io.twinbox.testkit.internal.Directories;
import io.twinbox.testkit.internal.FreePorts;
import io.twinbox.testkit.internal.NativeServers;
import io.twinbox.testkit.internal.StaleDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB server of its own, for tests and fault runs that {@code kill -9} the database without
 * touching the machine's shared server on 3306.
 *
 * <p>{@code mariadb-install-db --no-defaults --auth-root-authentication-method=normal} creates the
 * data directory (system tables only), then {@code /usr/sbin/mariadbd --no-defaults --user=root}
 * serves it on a free port of 127.0.0.1 below the kernel's ephemeral range (so that no outgoing
 * connection can take it while the server is down), with a Unix socket in its folder. As on the
 * shared server, {@value #USER} connects over TCP with an empty password. The server is sized for
 * tests (32 MB buffer pool, 16 MB redo log) but keeps InnoDB's durable defaults: every commit is
 * written and flushed to the redo log ({@code innodb_flush_log_at_trx_commit=1}), so committed rows
 * survive {@link #kill()} ({@code SIGKILL}) and {@link #restart()} (crash recovery; same port and
 * data). Ready means a JDBC connection succeeds.
 *
 * <pre>{@code
 * try (PrivateMariaDb db = PrivateMariaDb.start()) {
 *   db.createDatabase("app");
 *   DriverManager.getConnection(db.jdbcUrl("app"), PrivateMariaDb.USER, "");
 *   db.kill();
 *   db.restart();
 * }
 * }</pre>
 *
 * <p>{@link #close()} kills the server and deletes the data directory (the whole folder when it was
 * a temporary one). A JVM shutdown hook does the same for servers still running at exit; a server
 * left behind by a JVM killed with {@code -9} is killed, and its temporary folder deleted, by the
 * next {@link #start()} in any JVM.
 *
 * <p>Thread-safe: state changes are serialised.
 */
public final class PrivateMariaDb implements AutoCloseable {
  /** The superuser; it connects over TCP with an empty password. */
  public static final String USER = "root";
  /** Where Debian's {@code mariadb-server} package puts the server. */
  public static final Path SERVER = Path.of("/usr/sbin/mariadbd");
  /** The tool that creates a data directory. */
  public static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");

  private static final Logger LOG = LoggerFactory.getLogger(PrivateMariaDb.class);
  private static final String DIR_PREFIX = "twinbox-mariadb-";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration KILL_TIMEOUT = Duration.ofSeconds(20);
  private static final long INSTALL_TIMEOUT_SECONDS = 120;
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 40;
  /** Longest Unix socket path the kernel accepts is 107 bytes; beyond that the socket goes to /tmp. */
  private static final int MAX_SOCKET_PATH = 100;
  /** Small for tests; InnoDB's durable defaults otherwise (flush_log_at_trx_commit=1, doublewrite). */
  private static final List<String> SIZING = List.of("--innodb-buffer-pool-size=32M",
      "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=1", "--skip-name-resolve",
      "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin", "--max-connections=200");
  private static final Set<PrivateMariaDb> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(
        () -> LIVE.forEach(PrivateMariaDb::reap), "twinbox-mariadb-reaper"));
  }

  private final Path home;
  private final boolean deleteHome;
  private int port;
  // Volatile so that the shutdown hook can kill it without taking the lock.
  private volatile Process process;
  private long lastPid = -1;
  private boolean closed;

  private PrivateMariaDb(Path home, boolean deleteHome) {
    this.home = home;
    this.deleteHome = deleteHome;
  }

  /** True when {@link #SERVER} and {@link #INSTALL_DB} are installed. */
  public static boolean installed() {
    return Files.isExecutable(SERVER) && Files.isExecutable(INSTALL_DB);
  }

  /**
   * Creates a data directory in a new temporary folder (deleted whole at {@link #close()}), starts
   * the server and waits until it accepts connections.
   *
   * @throws IllegalStateException when MariaDB is not installed, {@code mariadb-install-db} fails
   *     (with its output), or the server is not ready within 60 s (with the tail of its log)
   */
  public static PrivateMariaDb start() {
    Path dir;
    try {
      dir = Files.createTempDirectory(DIR_PREFIX).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder for MariaDB", e);
    }
    StaleDirectories.markOwned(dir);
    NativeServers.sweep(dir.getParent(), DIR_PREFIX);
    return start(dir, true);
  }

  /**
   * As {@link #start()} in {@code home} (emptied first if it exists); {@link #close()} deletes only
   * the data directory there and keeps the logs.
   */
  public static PrivateMariaDb start(Path home) {
    Path dir = home.toAbsolutePath();
    try {
      if (Files.exists(dir)) {
        Directories.deleteRecursively(dir);
      }
      Files.createDirectories(dir);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("cannot make the folder of a private MariaDB: " + dir, e);
    }
    return start(dir, false);
  }

  private static PrivateMariaDb start(Path dir, boolean deleteHome) {
    if (!installed()) {
      if (deleteHome) {
        Directories.deleteRecursively(dir);
      }
      throw new IllegalStateException("MariaDB is not installed: no " + SERVER + " and " + INSTALL_DB
          + " (Debian package mariadb-server)");
    }
    PrivateMariaDb db = new PrivateMariaDb(dir, deleteHome);
    LIVE.add(db);
    try {
      db.installDb();
      db.firstStart();
      return db;
    } catch (RuntimeException | Error e) {
      db.close();
      throw e;
    }
  }

  /** The port on 127.0.0.1; the same across restarts. */
  public synchronized int port() {
    return port;
  }

  /** {@code jdbc:mariadb://127.0.0.1:<port>/<database>} (MariaDB Connector/J). */
  public synchronized String jdbcUrl(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
  }

  /**
   * Creates a database ({@code utf8mb4}, {@code utf8mb4_bin}, as the testkit's {@link
   * MariaDbDatabase} does on the shared server).
   *
   * @param name a plain SQL identifier (lower-case letters, digits, underscores)
   * @throws IllegalArgumentException when {@code name} is not such an identifier
   * @throws IllegalStateException when the server refuses
   */
  public void createDatabase(String name) {
    if (!name.matches("[a-z_][a-z0-9_]{0,63}")) {
      throw new IllegalArgumentException("database name must match [a-z_][a-z0-9_]{0,63}, was '" + name + "'");
    }
    try (Connection c = DriverManager.getConnection(jdbcUrl(""), USER, "");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + " on " + this, e);
    }
  }

  /** The folder holding {@code data/} and the logs. */
  public Path home() {
    return home;
  }

  /** The data directory, deleted by {@link #close()}. */
  public Path dataDir() {
    return home.resolve("data");
  }

  /** The server's error log, which also receives its stdout and stderr. */
  public Path logFile() {
    return home.resolve("mariadb.log");
  }

  /** True while the server's process is alive (it may still be starting or recovering). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The pid of the current {@code mariadbd}, or of the last one once killed.
   *
   * @throws IllegalStateException when no server was ever started
   */
  public synchronized long pid() {
    if (lastPid < 0) {
      throw new IllegalStateException("the server was never started");
    }
    return lastPid;
  }

  /**
   * {@code SIGKILL} to the server, as a crash would: no shutdown, no flush beyond what each commit
   * already did. Returns when its process is gone; does nothing when it is not running.
   */
  public synchronized void kill() {
    Process p = process;
    if (p != null && p.isAlive() && !NativeServers.killTree(p.toHandle(), KILL_TIMEOUT)) {
      throw new IllegalStateException("mariadbd pid " + p.pid() + " did not die within " + KILL_TIMEOUT);
    }
    process = null;
  }

  /**
   * Starts the server again on the same port and data (a running one is killed first); InnoDB's
   * crash recovery runs before it accepts connections, and this returns when it does. Launches are
   * retried while the process exits early (its port still held) until 60 s have passed.
   *
   * @throws IllegalStateException when it is not ready within 60 s, with the tail of the log
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("the server is closed");
    }
    kill();
    long started = System.nanoTime();
    long deadline = started + READY_TIMEOUT.toNanos();
    while (true) {
      launch();
      if (awaitReady(deadline)) {
        LOG.info("private MariaDB pid {} ready again on 127.0.0.1:{} in {} ms", lastPid, port, millisSince(started));
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw notReady("kept exiting during restart (last exit " + process.exitValue() + ")");
      }
      LOG.warn("private MariaDB exited during restart (exit {}); launching it again", process.exitValue());
      NativeServers.sleep(250);
    }
  }

  /** Kills the server and deletes the data directory (the whole folder when temporary). Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        kill();
      } finally {
        LIVE.remove(this);
        try {
          Directories.deleteRecursively(deleteHome ? home : dataDir());
        } catch (UncheckedIOException e) {
          LOG.warn("cannot delete {}", home, e);
        }
        deleteSocket();
      }
    }
  }

  @Override
  public String toString() {
    return "private MariaDB on 127.0.0.1:" + port + " (" + home + ")";
  }

  private void installDb() {
    Path log = home.resolve("install.log");
    List<String> cmd = new ArrayList<>(List.of(INSTALL_DB.toString(), "--no-defaults",
        "--datadir=" + dataDir(), "--auth-root-authentication-method=normal", "--user=" + USER,
        "--skip-test-db"));
    cmd.addAll(SIZING);
    try {
      Process p = NativeServers.launch(cmd, Map.of(), home, log);
      if (!p.waitFor(INSTALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        NativeServers.killTree(p.toHandle(), KILL_TIMEOUT);
        throw new IllegalStateException("`" + String.join(" ", cmd) + "` did not finish in "
            + INSTALL_TIMEOUT_SECONDS + " s; last lines of " + log + ":\n" + ChildProcess.tail(log, LOG_TAIL_LINES));
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("`" + String.join(" ", cmd) + "` exited " + p.exitValue()
            + "; last lines of " + log + ":\n" + ChildProcess.tail(log, LOG_TAIL_LINES));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the data directory in " + home, e);
    }
  }

  private synchronized void firstStart() {
    for (int attempt = 1; ; attempt++) {
      port = FreePorts.pick(1)[0];
      long started = System.nanoTime();
      launch();
      if (awaitReady(started + READY_TIMEOUT.toNanos())) {
        LOG.info("private MariaDB pid {} ready on 127.0.0.1:{} in {} ms (dir {})", lastPid, port,
            millisSince(started), home);
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw notReady("exited with code " + process.exitValue());
      }
      LOG.warn("private MariaDB exited during start (exit {}); trying another port. Log:\n{}",
          process.exitValue(), ChildProcess.tail(logFile(), 10));
    }
  }

  private Path socket() {
    Path inHome = home.resolve("mysqld.sock");
    return inHome.toString().length() <= MAX_SOCKET_PATH ? inHome
        : Path.of(System.getProperty("java.io.tmpdir"), DIR_PREFIX + port + ".sock");
  }

  private void deleteSocket() {
    try {
      Files.deleteIfExists(socket());
    } catch (IOException e) {
      // Only a stale socket file in /tmp.
    }
  }

  private void launch() {
    List<String> cmd = new ArrayList<>(List.of(SERVER.toString(), "--no-defaults", "--datadir=" + dataDir(),
        "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + socket(),
        "--pid-file=" + home.resolve("mariadbd.pid"), "--user=" + USER, "--log-error=" + logFile()));
    cmd.addAll(SIZING);
    process = NativeServers.launch(cmd, Map.of(), home, logFile());
    lastPid = process.pid();
  }

  /** True once ready; false when the process died first; kills it and throws at the deadline. */
  private boolean awaitReady(long deadlineNanos) {
    while (System.nanoTime() - deadlineNanos < 0) {
      if (!process.isAlive()) {
        return false;
      }
      if (accepts()) {
        return true;
      }
      NativeServers.sleep(100);
    }
    kill();
    throw notReady("not ready within " + READY_TIMEOUT.toSeconds() + " s");
  }

  private boolean accepts() {
    try (Connection c = DriverManager.getConnection(jdbcUrl("") + "?connectTimeout=1000", USER, "");
        Statement st = c.createStatement()) {
      st.execute("SELECT 1");
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /** Shutdown hook: kills without taking the lock, which a stuck test thread may hold. */
  private void reap() {
    Process p = process;
    if (p != null && p.isAlive()) {
      NativeServers.killTree(p.toHandle(), Duration.ofSeconds(10));
    }
    try {
      Directories.deleteRecursively(deleteHome ? home : dataDir());
    } catch (UncheckedIOException e) {
      // The JVM is exiting; a leftover folder is all that can go wrong.
    }
    deleteSocket();
  }

  private IllegalStateException notReady(String what) {
    return new IllegalStateException(this + " " + what + "; last lines of " + logFile() + ":\n"
        + ChildProcess.tail(logFile(), LOG_TAIL_LINES));
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
