package io.twinbox.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL cluster of its own, for tests and runs that must change server settings ({@code
 * wal_level=logical}) or {@code kill -9} the server, without touching the machine's shared server
 * on 5432. {@code initdb} and {@code pg_ctl} of the installed PostgreSQL (the highest version under
 * {@code /usr/lib/postgresql/<version>/bin}) run as the {@code postgres} OS user, because the
 * server refuses root; the caller must therefore be root. The cluster listens on a free port of
 * 127.0.0.1 with trust authentication for {@code postgres} and, unless a setting says otherwise,
 * no Unix socket.
 *
 * <pre>{@code
 * try (PrivatePostgresCluster pg = PrivatePostgresCluster.builder()
 *     .setting("wal_level", "logical")
 *     .start()) {
 *   pg.createDatabase("app");
 *   DriverManager.getConnection(pg.jdbcUrl("app"), PrivatePostgresCluster.USER, "");
 * }
 * }</pre>
 *
 * <p>The settings go into {@code postgresql.conf}, so that they hold again after {@link #kill()}
 * and {@link #restart()}. {@link #close()} stops the server and deletes its data directory (and the
 * whole folder when the builder made a temporary one); a JVM shutdown hook does the same for a
 * cluster still running at exit. A {@code kill -9} of the JVM leaves the cluster behind: its folder
 * is in the log. Methods are thread-safe only as far as the caller serialises them.
 */
public final class PrivatePostgresCluster implements AutoCloseable {
  /** The superuser the cluster is created with; it needs no password. */
  public static final String USER = "postgres";
  /** Where Debian's postgresql-&lt;version&gt; packages put their server binaries. */
  static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");

  private static final Logger LOG = LoggerFactory.getLogger(PrivatePostgresCluster.class);
  private static final String OS_USER = "postgres";
  private static final long COMMAND_TIMEOUT_SECONDS = 180;
  private static final Pattern VERSION = Pattern.compile("\\d+(\\.\\d+)?");
  private static final Pattern SETTING_NAME = Pattern.compile("[a-z_][a-z0-9_.]*");

  private final Path bin;
  private final String version;
  private final Path home;
  private final boolean deleteHome;
  private final int port;
  private final String stopMode;
  private final Thread hook;
  private boolean closed;

  private PrivatePostgresCluster(Path bin, Path home, boolean deleteHome, int port, String stopMode) {
    this.bin = bin;
    this.version = bin.getParent().getFileName().toString();
    this.home = home;
    this.deleteHome = deleteHome;
    this.port = port;
    this.stopMode = stopMode;
    this.hook = new Thread(this::closeQuietly, "private-postgres-stop");
  }

  /** A builder with no extra setting, a temporary folder, and {@code pg_ctl stop -m fast} at close. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The {@code bin} folder of the highest PostgreSQL version installed under {@code
   * /usr/lib/postgresql}, if it holds {@code initdb} and {@code pg_ctl}.
   */
  public static Optional<Path> binaries() {
    if (!Files.isDirectory(INSTALL_ROOT)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(INSTALL_ROOT)) {
      return versions
          .filter(v -> VERSION.matcher(v.getFileName().toString()).matches())
          .map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparingDouble(b -> Double.parseDouble(b.getParent().getFileName().toString())));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The major version of the binaries, e.g. {@code "15"}. */
  public String version() {
    return version;
  }

  /** The port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The folder holding {@code data/} and {@code server.log}. */
  public Path home() {
    return home;
  }

  /** The data directory, deleted by {@link #close()}. */
  public Path dataDir() {
    return home.resolve("data");
  }

  /** The server log; kept by {@link #close()} unless the whole temporary folder is deleted. */
  public Path serverLog() {
    return home.resolve("server.log");
  }

  /** {@code jdbc:postgresql://127.0.0.1:<port>/<database>}. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /**
   * Creates a database owned by {@link #USER}.
   *
   * @param name a plain SQL identifier (lower-case letters, digits, underscores)
   * @throws IllegalArgumentException when {@code name} is not such an identifier
   * @throws IllegalStateException when the server refuses
   */
  public void createDatabase(String name) {
    if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("database name must match [a-z_][a-z0-9_]{0,62}, was '" + name + "'");
    }
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + " on the private cluster on port " + port, e);
    }
  }

  /** True while the postmaster named in {@code postmaster.pid} is alive. */
  public boolean isRunning() {
    long pid = postmasterPid();
    return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * {@code SIGKILL} to the postmaster and every backend at once, as a power cut would: no shutdown
   * checkpoint. Returns when all of them are gone.
   *
   * @throws IllegalStateException when no postmaster runs, or a process does not die within 20 s
   */
  public void kill() {
    long pid = postmasterPid();
    ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(
        () -> new IllegalStateException("no postmaster running for " + dataDir()));
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

  /**
   * Starts the server again after {@link #kill()} (crash recovery runs first), on the same port and
   * with the same settings; returns when it accepts connections.
   *
   * @throws IllegalStateException naming the command that failed and its output
   */
  public void restart() {
    pgCtlStart();
  }

  /**
   * Stops the server ({@code pg_ctl stop}, or {@link #kill()} when that fails) and deletes the data
   * directory — the whole folder when the builder made a temporary one. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Called from the hook itself.
    }
    if (isRunning()) {
      try {
        asPostgres("pg_ctl", "-D", dataDir().toString(), "-m", stopMode, "-w", "-t", "120", "stop");
      } catch (IllegalStateException e) {
        LOG.warn("pg_ctl stop failed; killing the private cluster in {}", home, e);
        kill();
      }
    }
    Path doomed = deleteHome ? home : dataDir();
    try {
      deleteTree(doomed);
    } catch (IOException e) {
      LOG.warn("cannot delete {}", doomed, e);
    }
  }

  @Override
  public String toString() {
    return "private PostgreSQL " + version + " cluster on 127.0.0.1:" + port + " (" + dataDir() + ")";
  }

  private void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      System.err.println("cannot stop or delete the private PostgreSQL cluster in " + home + ": " + e);
    }
  }

  private void initdb(Map<String, String> settings) throws IOException {
    run(List.of("chown", OS_USER + ":" + OS_USER, home.toString()));
    asPostgres("initdb", "-D", dataDir().toString(), "-U", USER, "--auth=trust", "-E", "UTF8",
        "--locale=C.UTF-8", "--no-sync");
    StringBuilder conf = new StringBuilder("\n# twinbox-testkit PrivatePostgresCluster\n");
    settings.forEach((k, v) -> conf.append(k).append(" = '").append(v.replace("'", "''")).append("'\n"));
    // Appended by root to a file owned by postgres: the owner stays postgres.
    Files.writeString(dataDir().resolve("postgresql.conf"), conf, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  private void pgCtlStart() {
    asPostgres("pg_ctl", "-D", dataDir().toString(), "-l", serverLog().toString(), "-w", "-t", "120", "start");
  }

  /** The postmaster's pid from its lock file, or -1. */
  private long postmasterPid() {
    try {
      Path pidFile = dataDir().resolve("postmaster.pid");
      return Files.exists(pidFile) ? Long.parseLong(Files.readAllLines(pidFile).get(0).trim()) : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private void asPostgres(String tool, String... args) {
    List<String> cmd = new ArrayList<>(List.of("runuser", "-u", OS_USER, "--", bin.resolve(tool).toString()));
    cmd.addAll(List.of(args));
    run(cmd);
  }

  private static void run(List<String> cmd) {
    String line = String.join(" ", cmd);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).directory(Path.of("/tmp").toFile()).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("`" + line + "` did not finish in " + COMMAND_TIMEOUT_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("`" + line + "` exited " + p.exitValue() + ": "
            + new String(out, StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run `" + line + "`", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running `" + line + "`", e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port on 127.0.0.1", e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Settings and folder of a cluster to start; not thread-safe. */
  public static final class Builder {
    private final Map<String, String> settings = new LinkedHashMap<>();
    private Path home;
    private String stopMode = "fast";

    private Builder() {}

    /**
     * The folder for {@code data/} and {@code server.log}; emptied first if it exists, and at
     * {@link #close()} only {@code data/} is deleted. The {@code postgres} OS user must be able to
     * enter every folder above it (JUnit's {@code @TempDir} is {@code rwx------}). Default: a fresh
     * temporary folder, deleted whole at close.
     */
    public Builder home(Path home) {
      this.home = home.toAbsolutePath();
      return this;
    }

    /**
     * A {@code postgresql.conf} setting, e.g. {@code ("wal_level", "logical")}; written quoted.
     * {@code port} and {@code listen_addresses} belong to the cluster and cannot be set.
     *
     * @throws IllegalArgumentException when {@code name} is not a setting name, or is one of those two
     */
    public Builder setting(String name, String value) {
      if (!SETTING_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("setting name must match " + SETTING_NAME + ", was '" + name + "'");
      }
      if (name.equals("port") || name.equals("listen_addresses")) {
        throw new IllegalArgumentException("setting " + name + " is chosen by the cluster itself");
      }
      settings.put(name, value);
      return this;
    }

    /** Every entry of {@code more} as {@link #setting(String, String)}, in the map's order. */
    public Builder settings(Map<String, String> more) {
      more.forEach(this::setting);
      return this;
    }

    /**
     * How {@link #close()} stops the server: {@code "fast"} (default, a shutdown checkpoint) or
     * {@code "immediate"} (no checkpoint; crash recovery would follow a restart).
     */
    public Builder stopMode(String mode) {
      if (!mode.equals("fast") && !mode.equals("immediate") && !mode.equals("smart")) {
        throw new IllegalArgumentException("stopMode must be smart, fast or immediate, was '" + mode + "'");
      }
      this.stopMode = mode;
      return this;
    }

    /**
     * Runs {@code initdb}, writes the settings and starts the server; on any failure what was made
     * is stopped and deleted.
     *
     * @throws IllegalStateException when no PostgreSQL binaries are installed (naming the path
     *     and package), or naming the command that failed and its output
     */
    public PrivatePostgresCluster start() {
      Path bin = binaries().orElseThrow(() -> new IllegalStateException("no PostgreSQL server binaries:"
          + " no initdb and pg_ctl under " + INSTALL_ROOT + "/<version>/bin (Debian package postgresql-<version>)"));
      Path dir;
      try {
        if (home == null) {
          dir = Files.createTempDirectory("twinbox-private-pg-").toAbsolutePath();
        } else {
          deleteTree(home);
          dir = Files.createDirectories(home);
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot make the folder of a private PostgreSQL cluster: "
            + (home == null ? "a temporary folder" : home), e);
      }
      PrivatePostgresCluster cluster = new PrivatePostgresCluster(bin, dir, home == null, freePort(), stopMode);
      Map<String, String> all = new LinkedHashMap<>();
      all.put("listen_addresses", "127.0.0.1");
      all.put("port", Integer.toString(cluster.port));
      all.put("unix_socket_directories", "");
      all.putAll(settings);
      try {
        cluster.initdb(all);
        cluster.pgCtlStart();
        Runtime.getRuntime().addShutdownHook(cluster.hook);
      } catch (IOException | RuntimeException e) {
        cluster.closeQuietly();
        throw new IllegalStateException("cannot start a private PostgreSQL cluster in " + dir + ": " + e.getMessage(), e);
      }
      LOG.info("{}", cluster);
      return cluster;
    }
  }
}
