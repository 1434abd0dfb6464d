package io.twinbox.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fresh, empty MariaDB database for one test class, dropped again by {@link #close()}.
 *
 * <p>The database {@code twinbox_<16 hex digits>} is created on the local server at {@code
 * 127.0.0.1:3306} as {@code root} with an empty password; {@code TWINBOX_MARIADB_HOST}, {@code
 * _PORT}, {@code _USER} and {@code _PASSWORD} override these. When the server does not answer, the
 * test is skipped loudly — or fails when {@code CI=true} (see {@link LocalServers}).
 *
 * <p>Thread-safe. Databases still open when the JVM exits are dropped by a shutdown hook.
 */
public final class MariaDbDatabase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MariaDbDatabase.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  public static final int MAX_CONNECTIONS = 16;
  private static final Set<MariaDbDatabase> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(MariaDbDatabase::close),
        "twinbox-mariadb-reaper"));
  }

  private final String name;
  private final HikariDataSource pool;
  private boolean closed;

  private MariaDbDatabase(String name, HikariDataSource pool) {
    this.name = name;
    this.pool = pool;
  }

  private static String env(String key, String fallback) {
    String v = System.getenv(key);
    return v == null || v.isBlank() ? fallback : v;
  }

  static String host() {
    return env("TWINBOX_MARIADB_HOST", "127.0.0.1");
  }

  static int port() {
    return Integer.parseInt(env("TWINBOX_MARIADB_PORT", "3306"));
  }

  static String user() {
    return env("TWINBOX_MARIADB_USER", "root");
  }

  static String password() {
    return env("TWINBOX_MARIADB_PASSWORD", "");
  }

  /** Creates a new database with a random name and a pool on it; skips or fails if no server. */
  public static MariaDbDatabase create() {
    LocalServers.require("MariaDB", host(), port(),
        "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd");
    byte[] random = new byte[8];
    RANDOM.nextBytes(random);
    String name = "twinbox_" + HexFormat.of().formatHex(random);
    execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url(name));
    config.setUsername(user());
    config.setPassword(password());
    config.setMaximumPoolSize(MAX_CONNECTIONS);
    config.setMinimumIdle(2);
    config.setConnectionTimeout(10_000);
    MariaDbDatabase db = new MariaDbDatabase(name, new HikariDataSource(config));
    OPEN.add(db);
    LOG.info("created MariaDB database {}", name);
    return db;
  }

  private static String url(String database) {
    return "jdbc:mariadb://" + host() + ":" + port() + "/" + database;
  }

  public String name() {
    return name;
  }

  public String jdbcUrl() {
    return url(name);
  }

  /** The user the pool connects as (for a child process that opens its own pool). */
  public String databaseUser() {
    return user();
  }

  /** That user's password, for a child process's own pool; never log it. */
  public String databasePassword() {
    return password();
  }

  /** A HikariCP pool on the database, at most {@value #MAX_CONNECTIONS} connections. */
  public DataSource dataSource() {
    return pool;
  }

  /** Closes the pool and drops the database. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    OPEN.remove(this);
    pool.close();
    execute("DROP DATABASE IF EXISTS " + name);
  }

  private static void execute(String sql) {
    try (Connection c = DriverManager.getConnection(url(""), user(), password());
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("`" + sql + "` failed on MariaDB " + host() + ":" + port() + ": "
          + e.getMessage(), e);
    }
  }
}
