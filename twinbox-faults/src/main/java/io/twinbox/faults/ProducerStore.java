package io.twinbox.faults;

import io.twinbox.testkit.contract.TcpProxy;
import java.net.URI;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The producer's database of one run (outbox and {@code orders}), chosen by {@code
 * -Dfaults.store}: a fresh database on the shared PostgreSQL (default) or MariaDB, or a server this
 * run owns — for rows that restart the database (B9, E1) a private PostgreSQL cluster or MariaDB
 * server, for the WAL relay's rows a private {@code wal_level=logical} PostgreSQL cluster. The
 * relays reach it through the run's fault proxy; the runner and the producer directly.
 */
interface ProducerStore extends AutoCloseable {
  /** The shared PostgreSQL on 5432. */
  String POSTGRESQL = "postgresql";
  /** The shared MariaDB on 3306, or a private server for rows that restart the database. */
  String MARIADB = "mariadb";

  /** Opens the store {@code kind} for {@code scenario}; {@code dir} is the run's folder. */
  static ProducerStore open(String kind, Scenario scenario, Path dir) {
    return switch (kind) {
      case POSTGRESQL -> scenario.databaseLocale() != null
          ? PrivatePostgresStore.start(dir, false, false, scenario.databaseLocale())
          : scenario.walRelay() ? PrivatePostgresStore.start(dir, true, false)
          : scenario.kinds().contains(FaultKind.DISK_FULL) ? PrivatePostgresStore.start(dir, false, true)
          : scenario.kinds().contains(FaultKind.DB_RESTART) ? PrivatePostgresStore.start(dir, false, false)
          : new SharedPostgresStore();
      case MARIADB -> scenario.kinds().contains(FaultKind.DB_RESTART) ? PrivateMariaDbStore.start(dir)
          : new MariaDbStore();
      default -> throw new IllegalArgumentException("faults.store must be postgresql or mariadb, was '" + kind + "'");
    };
  }

  /**
   * The faults a store of {@code kind} supports: every one on PostgreSQL; on MariaDB all but the
   * WAL relay's. The shared servers are never restarted: rows with {@link FaultKind#DB_RESTART}
   * get a private server of the run (a PostgreSQL cluster, a MariaDB server).
   */
  static Set<FaultKind> supported(String kind) {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    if (kind.equals(MARIADB)) {
      all.remove(FaultKind.DISK_FULL);
      all.removeAll(FaultKind.WAL_ONLY);
    } else if (!kind.equals(POSTGRESQL)) {
      throw new IllegalArgumentException("faults.store must be postgresql or mariadb, was '" + kind + "'");
    }
    return all;
  }

  /** {@code postgresql} or {@code mariadb}. */
  String kind();

  DataSource dataSource();

  String jdbcUrl();

  String user();

  String password();

  /** The server's host, read from {@link #jdbcUrl()}. */
  default String host() {
    return address().getHost();
  }

  /** The server's port, read from {@link #jdbcUrl()}. */
  default int port() {
    return address().getPort();
  }

  /** The relays' JDBC URL: {@link #jdbcUrl()} with the fault proxy on {@code proxyPort} as host and port. */
  default String relayUrl(int proxyPort) {
    URI u = address();
    return "jdbc:" + u.getScheme() + "://127.0.0.1:" + proxyPort + u.getRawPath()
        + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
  }

  private URI address() {
    return URI.create(jdbcUrl().substring("jdbc:".length()));
  }

  /** The business table, written in each producer transaction (the committed ledger); PostgreSQL's by default. */
  default String ordersDdl() {
    return PgDdl.ORDERS;
  }

  /** Extra tables the producer needs (PostgreSQL by default: the deferred constraint failing at COMMIT). */
  default String[] extraDdl() {
    return new String[] {PgDdl.COMMIT_BOMB};
  }

  /** An event id as a JDBC parameter of this store's id columns (PostgreSQL by default: a uuid). */
  default Object id(UUID id) {
    return id;
  }

  /** Ends every relay session ({@link FaultKind#DB_TERMINATE}); returns how many. */
  int terminateRelaySessions(TcpProxy proxy);

  /** kill -9 of the database server ({@link FaultKind#DB_RESTART}); only on a private server. */
  default void kill() {
    throw new UnsupportedOperationException("the shared " + kind() + " is never killed");
  }

  /**
   * Fills the server's disk for {@code holdMillis}, frees it, and starts the server again if it
   * stopped ({@link FaultKind#DISK_FULL}); returns what happened. Only on a private cluster on a
   * filesystem of its own.
   */
  default String fillDisk(long holdMillis) {
    throw new UnsupportedOperationException("the disk of the shared " + kind() + " is never filled");
  }

  /** Starts a killed server again; returns how long the start (crash recovery) took, in ms. */
  default long restart() {
    throw new UnsupportedOperationException("the shared " + kind() + " is never restarted");
  }

  default boolean isRunning() {
    return true;
  }

  @Override
  void close();
}
