package io.twinbox.cli.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.jdbc.JdbcStore;
import java.sql.SQLException;
import java.time.Duration;

/** A HikariCP pool and a {@link JdbcStore} on it, from the settings. Close it to close the pool. */
public final class Database implements AutoCloseable {
  private final HikariDataSource pool;
  private final JdbcStore store;

  private Database(HikariDataSource pool, JdbcStore store) {
    this.pool = pool;
    this.store = store;
  }

  /**
   * Opens the pool (connecting once) and detects the dialect.
   *
   * @param poolSize connections at most
   * @throws ConfigException when the URL names no known database
   * @throws UnreachableException when the server cannot be reached or refuses the login
   */
  public static Database open(Settings settings, int poolSize, String poolName) {
    String url = settings.require("db.url");
    if (!url.startsWith("jdbc:postgresql:") && !url.startsWith("jdbc:mariadb:") && !url.startsWith("jdbc:mysql:")) {
      throw new ConfigException("db.url must be a jdbc:postgresql: or jdbc:mariadb: URL, was '"
          + Scrubber.maskText(url) + "'");
    }
    Duration timeout = settings.duration("db.connect.timeout");
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(settings.get("db.user"));
    c.setPassword(settings.get("db.password"));
    c.setMaximumPoolSize(poolSize);
    c.setMinimumIdle(Math.min(2, poolSize));
    c.setPoolName(poolName);
    c.setConnectionTimeout(Math.max(250, timeout.toMillis()));
    c.setInitializationFailTimeout(Math.max(1, timeout.toMillis()));
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(c);
    } catch (RuntimeException e) {
      throw new UnreachableException("cannot connect to the database at " + Scrubber.maskText(url)
          + (settings.get("db.user") == null ? "" : " as " + settings.get("db.user")) + ": " + rootReason(e));
    }
    try {
      return new Database(pool, JdbcStore.builder(pool).build());
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  public JdbcStore store() {
    return store;
  }

  public HikariDataSource pool() {
    return pool;
  }

  /** The innermost cause's message (the driver's words), for an error line. */
  public static String rootReason(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    if (t instanceof SQLException s && s.getSQLState() != null) {
      m = m + " (SQLSTATE " + s.getSQLState() + ")";
    }
    return Scrubber.scrub(m == null ? t.getClass().getSimpleName() : m);
  }

  @Override
  public void close() {
    pool.close();
  }
}
