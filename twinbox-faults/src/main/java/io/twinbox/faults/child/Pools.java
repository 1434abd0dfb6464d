package io.twinbox.faults.child;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Connection pools of the child JVMs. */
final class Pools {
  private Pools() {}

  /**
   * A pool whose sessions show {@code name} as their {@code application_name} (PostgreSQL; MariaDB
   * has no such thing: its relay sessions are told apart by their client address).
   */
  static HikariDataSource open(String jdbcUrl, String user, String password, String name, int size) {
    return new HikariDataSource(config(jdbcUrl, user, password, name, size));
  }

  private static HikariConfig config(String jdbcUrl, String user, String password, String name, int size) {
    HikariConfig hc = new HikariConfig();
    String sep = jdbcUrl.contains("?") ? "&" : "?";
    // A blackholed or half-dead connection must fail, not hang the process forever.
    hc.setJdbcUrl(isMariaDb(jdbcUrl)
        ? jdbcUrl + sep + "socketTimeout=30000&connectTimeout=10000&tcpKeepAlive=true"
        : jdbcUrl + sep + "ApplicationName=" + name + "&socketTimeout=30&connectTimeout=10&tcpKeepAlive=true");
    hc.setUsername(user);
    hc.setPassword(password);
    hc.setMaximumPoolSize(size);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(10_000);
    hc.setPoolName(name);
    return hc;
  }

  /** A pool whose connections run their transactions at {@code isolation} (e.g. {@code TRANSACTION_SERIALIZABLE}). */
  static HikariDataSource open(String jdbcUrl, String user, String password, String name, int size,
      String isolation) {
    HikariConfig hc = config(jdbcUrl, user, password, name, size);
    hc.setTransactionIsolation(isolation);
    return new HikariDataSource(hc);
  }

  static boolean isMariaDb(String jdbcUrl) {
    return jdbcUrl.startsWith("jdbc:mariadb:");
  }
}
