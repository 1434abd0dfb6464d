package io.twinbox.testkit;

import io.twinbox.testkit.internal.ChildProcess;
import io.twinbox.testkit.internal.NativeServer;
import io.twinbox.testkit.internal.NativeServers;
import java.io.IOException;
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
import java.util.concurrent.TimeUnit;

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
 * survive {@link #kill()} ({@code SIGKILL}, as a crash would: no shutdown, no flush beyond what each
 * commit already did) and {@link #restart()} (same port and data; InnoDB's crash recovery runs
 * before the server accepts connections, and a restart waits up to 60 s for that, as {@link
 * #start()} does). Ready means a JDBC connection succeeds.
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
public final class PrivateMariaDb extends NativeServer {
  /** The superuser; it connects over TCP with an empty password. */
  public static final String USER = "root";
  /** Where Debian's {@code mariadb-server} package puts the server. */
  public static final Path SERVER = Path.of("/usr/sbin/mariadbd");
  /** The tool that creates a data directory. */
  public static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");

  private static final Kind KIND = new Kind("private MariaDB", "twinbox-mariadb-", 1, Duration.ofSeconds(60), 100,
      250);
  private static final long INSTALL_TIMEOUT_SECONDS = 120;
  /** Longest Unix socket path the kernel accepts is 107 bytes; beyond that the socket goes to /tmp. */
  private static final int MAX_SOCKET_PATH = 100;
  /** Small for tests; InnoDB's durable defaults otherwise (flush_log_at_trx_commit=1, doublewrite). */
  private static final List<String> SIZING = List.of("--innodb-buffer-pool-size=32M",
      "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=1", "--skip-name-resolve",
      "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin", "--max-connections=200");

  private PrivateMariaDb(Path home) {
    super(KIND, home);
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
    requireInstalled();
    return started(new PrivateMariaDb(null));
  }

  /**
   * As {@link #start()} in {@code home} (emptied first if it exists); {@link #close()} deletes only
   * the data directory there and keeps the logs.
   */
  public static PrivateMariaDb start(Path home) {
    requireInstalled();
    return started(new PrivateMariaDb(home));
  }

  /** {@code jdbc:mariadb://127.0.0.1:<port>/<database>} (MariaDB Connector/J). */
  public String jdbcUrl(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port() + "/" + database;
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

  /** The data directory, deleted by {@link #close()}. */
  @Override
  public Path dataDir() {
    return home().resolve("data");
  }

  /** The server's error log, which also receives its stdout and stderr. */
  public Path logFile() {
    return home().resolve("mariadb.log");
  }

  /** {@code mariadb-install-db} creates the data directory (system tables only). */
  @Override
  protected void install() {
    Path log = home().resolve("install.log");
    List<String> cmd = new ArrayList<>(List.of(INSTALL_DB.toString(), "--no-defaults",
        "--datadir=" + dataDir(), "--auth-root-authentication-method=normal", "--user=" + USER,
        "--skip-test-db"));
    cmd.addAll(SIZING);
    try {
      Process p = NativeServers.launch(cmd, Map.of(), home(), log);
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
      throw new IllegalStateException("interrupted while creating the data directory in " + home(), e);
    }
  }

  @Override
  protected List<String> command() {
    List<String> cmd = new ArrayList<>(List.of(SERVER.toString(), "--no-defaults", "--datadir=" + dataDir(),
        "--port=" + port(), "--bind-address=127.0.0.1", "--socket=" + socket(),
        "--pid-file=" + home().resolve("mariadbd.pid"), "--user=" + USER, "--log-error=" + logFile()));
    cmd.addAll(SIZING);
    return cmd;
  }

  @Override
  protected List<Path> logs() {
    return List.of(logFile());
  }

  @Override
  protected boolean ready() {
    try (Connection c = DriverManager.getConnection(jdbcUrl("") + "?connectTimeout=1000", USER, "");
        Statement st = c.createStatement()) {
      st.execute("SELECT 1");
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /** Deletes the socket file, which is outside the folder when the folder's path is long. */
  @Override
  protected void cleanUp() {
    try {
      Files.deleteIfExists(socket());
    } catch (IOException e) {
      // Only a stale socket file in /tmp.
    }
  }

  private Path socket() {
    Path inHome = home().resolve("mysqld.sock");
    return inHome.toString().length() <= MAX_SOCKET_PATH ? inHome
        : Path.of(System.getProperty("java.io.tmpdir"), KIND.dirPrefix() + port() + ".sock");
  }

  private static void requireInstalled() {
    if (!installed()) {
      throw new IllegalStateException("MariaDB is not installed: no " + SERVER + " and " + INSTALL_DB
          + " (Debian package mariadb-server)");
    }
  }
}
