package io.twinbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL cluster of this run only (FAULTS B9), so that the nemesis may {@code kill -9} it and
 * start it again without touching the machine's shared server on 5432: {@code initdb} and {@code
 * pg_ctl} of the installed PostgreSQL, run as the {@code postgres} user (the server refuses root),
 * data under the run's folder, a free loopback port, no Unix socket, {@code fsync=on}
 * ({@code synchronous_commit=on}, the defaults). Started once per run, stopped and deleted at close.
 */
final class PrivatePostgresStore implements ProducerStore {
  private static final Logger LOG = LoggerFactory.getLogger(PrivatePostgresStore.class);
  private static final String DATABASE = "faults";

  private final Path bin;
  private final Path home;
  private final Path data;
  private final int port;
  private HikariDataSource pool;

  private PrivatePostgresStore(Path bin, Path home, int port) {
    this.bin = bin;
    this.home = home;
    this.data = home.resolve("data");
    this.port = port;
  }

  /** initdb, start, create the database; the cluster lives in {@code <dir>/pg}. */
  static PrivatePostgresStore start(Path dir) {
    PrivatePostgresStore s = new PrivatePostgresStore(binaries(), dir.resolve("pg").toAbsolutePath(), freePort());
    try {
      if (Files.exists(s.home)) {
        deleteTree(s.home);
      }
      Files.createDirectories(s.home);
      run(List.of("chown", "postgres:postgres", s.home.toString()));
      s.asPostgres("initdb", "-D", s.data.toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync");
      s.pgCtlStart();
      try (Connection c = DriverManager.getConnection(s.url("postgres"), "postgres", "");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE " + DATABASE);
      }
    } catch (IOException | SQLException e) {
      s.close();
      throw new IllegalStateException("cannot start a private PostgreSQL cluster in " + s.home, e);
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(s.jdbcUrl());
    hc.setUsername("postgres");
    hc.setMaximumPoolSize(8);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(30_000);
    hc.setPoolName("faults-private-pg");
    s.pool = new HikariDataSource(hc);
    LOG.info("private PostgreSQL cluster on 127.0.0.1:{}, data in {}", s.port, s.data);
    return s;
  }

  private static Path binaries() {
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparing(Path::toString))
          .orElseThrow(() -> new IllegalStateException("no pg_ctl under /usr/lib/postgresql/*/bin"));
    } catch (IOException e) {
      throw new IllegalStateException("no PostgreSQL binaries under /usr/lib/postgresql", e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port", e);
    }
  }

  private void pgCtlStart() throws IOException {
    asPostgres("pg_ctl", "-D", data.toString(), "-l", home.resolve("server.log").toString(), "-w", "-t", "120",
        "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=on"
            + " -c max_connections=60 -c shared_buffers=32MB", "start");
  }

  private void asPostgres(String tool, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("runuser", "-u", "postgres", "--", bin.resolve(tool).toString()));
    cmd.addAll(List.of(args));
    run(cmd);
  }

  private static void run(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + cmd, e);
    }
  }

  private String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** The postmaster's pid from its lock file, or -1. */
  private long postmasterPid() {
    try {
      Path pidFile = data.resolve("postmaster.pid");
      return Files.exists(pidFile) ? Long.parseLong(Files.readAllLines(pidFile).get(0).trim()) : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  @Override
  public void kill() {
    long pid = postmasterPid();
    ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(
        () -> new IllegalStateException("no postmaster running for " + data));
    // The postmaster and every backend at once, as a power cut would: no shutdown checkpoint.
    List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
    all.add(0, postmaster);
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("process " + h.pid() + " of the private cluster did not die", e);
      }
    }
  }

  @Override
  public long restart() {
    long t0 = System.nanoTime();
    try {
      pgCtlStart();
    } catch (IOException e) {
      throw new IllegalStateException("the private cluster did not start again", e);
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Override
  public boolean isRunning() {
    long pid = postmasterPid();
    return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Override
  public String kind() {
    return POSTGRESQL;
  }

  @Override
  public DataSource dataSource() {
    return pool;
  }

  @Override
  public String jdbcUrl() {
    return url(DATABASE);
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  public String host() {
    return "127.0.0.1";
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String relayUrl(int proxyPort) {
    return "jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + DATABASE;
  }

  @Override
  public String ordersDdl() {
    return PgDdl.ORDERS;
  }

  @Override
  public String[] extraDdl() {
    return new String[] {PgDdl.COMMIT_BOMB};
  }

  @Override
  public Object id(UUID id) {
    return id;
  }

  @Override
  public int terminateRelaySessions(FaultProxy proxy) {
    return PgDdl.terminateRelaySessions(pool);
  }

  /** Stops the cluster (immediate) and deletes its data; the server log stays. */
  @Override
  public void close() {
    if (pool != null) {
      pool.close();
    }
    if (isRunning()) {
      try {
        asPostgres("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
      } catch (IOException e) {
        LOG.warn("pg_ctl stop failed; killing the private cluster", e);
        kill();
      }
    }
    try {
      if (Files.exists(data)) {
        deleteTree(data);
      }
    } catch (IOException e) {
      LOG.warn("cannot delete {}", data, e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
