package io.twinbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.PostgresDatabase;

/** HikariCP pools for the scenarios: fixed size, auto-commit off, as an application would run. */
public final class Pools {
  private Pools() {}

  /**
   * A pool of exactly {@code size} connections.
   *
   * @param autoCommit the connections' default; writers use {@code false}
   */
  public static HikariDataSource create(PostgresDatabase db, String name, int size, boolean autoCommit) {
    return create(db, name, size, autoCommit, null);
  }

  /** Like {@link #create(PostgresDatabase, String, int, boolean)}; {@code initSql} runs on every new connection. */
  public static HikariDataSource create(PostgresDatabase db, String name, int size, boolean autoCommit, String initSql) {
    return create(db.jdbcUrl(), db.user(), db.password(), name, size, autoCommit, initSql);
  }

  /** A pool of exactly {@code size} connections on any JDBC URL (MariaDB). */
  public static HikariDataSource create(String jdbcUrl, String user, String password, String name, int size,
      boolean autoCommit, String initSql) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setUsername(user);
    cfg.setPassword(password);
    cfg.setPoolName(name);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(size);
    cfg.setAutoCommit(autoCommit);
    cfg.setConnectionTimeout(30_000);
    cfg.setInitializationFailTimeout(10_000);
    if (initSql != null) {
      cfg.setConnectionInitSql(initSql);
    }
    return new HikariDataSource(cfg);
  }
}
