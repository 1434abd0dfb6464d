package io.twinbox.bench.peers.debezium;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private PostgreSQL 15 cluster for the Debezium scenarios, which need {@code wal_level=logical}
 * (the shared server on 5432 runs {@code replica} and is left alone). {@link #start()} runs
 * {@code initdb} and {@code pg_ctl start} as the {@code postgres} OS user (PostgreSQL refuses
 * root) on a data directory in a fresh temporary folder and a free port, with trust authentication
 * on 127.0.0.1; {@link #close()} stops it and deletes the folder. The other settings follow the
 * shared server's ({@code fsync=on}, {@code autovacuum=off}, default {@code shared_buffers}), so
 * that the figures stay comparable with the other sections of BENCHMARKS.md.
 *
 * <p>A JVM shutdown hook closes a cluster that is still running (Ctrl-C, an exception escaping
 * {@code main}); a {@code kill -9} of the JVM leaves it behind, see {@link #dataDir()} in the log.
 */
public final class PrivateCluster implements AutoCloseable {
  /** Where Debian's postgresql-15 package puts initdb and pg_ctl. */
  static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
  private static final String OS_USER = "postgres";

  private final Path dir;
  private final int port;
  private final Thread hook;
  private boolean closed;

  private PrivateCluster(Path dir, int port) {
    this.dir = dir;
    this.port = port;
    this.hook = new Thread(this::stopQuietly, "private-postgres-stop");
  }

  /**
   * Creates, configures and starts the cluster; on any failure what was made is stopped and deleted.
   *
   * @throws IllegalStateException naming the command that failed and its output
   */
  public static PrivateCluster start() throws IOException, InterruptedException {
    if (!Files.isExecutable(BIN.resolve("initdb"))) {
      throw new IllegalStateException("no PostgreSQL 15 binaries at " + BIN + " (Debian package postgresql-15)");
    }
    Path dir = Files.createTempDirectory("twinbox-debezium-pg-");
    PrivateCluster cluster = new PrivateCluster(dir, freePort());
    try {
      run(List.of("chown", OS_USER + ":" + OS_USER, dir.toString()));
      cluster.initdb();
      cluster.configure();
      asPostgres(List.of(BIN.resolve("pg_ctl").toString(), "-D", cluster.dataDir().toString(), "-l",
          dir.resolve("server.log").toString(), "-w", "-t", "60", "start"));
      Runtime.getRuntime().addShutdownHook(cluster.hook);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.stopQuietly();
      throw e;
    }
  }

  /** The port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The data directory (under a temporary folder deleted by {@link #close()}). */
  public Path dataDir() {
    return dir.resolve("data");
  }

  /** What the cluster runs with, for the report. */
  public String description() {
    return "private PostgreSQL 15 cluster on 127.0.0.1:" + port + " (" + dataDir()
        + "; wal_level=logical, fsync=on, autovacuum=off)";
  }

  private void initdb() throws IOException, InterruptedException {
    asPostgres(List.of(BIN.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", OS_USER,
        "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"));
  }

  private void configure() throws IOException {
    String conf = String.join("\n",
        "# twinbox-bench debezium: private cluster",
        "listen_addresses = '127.0.0.1'",
        "port = " + port,
        "unix_socket_directories = '" + dir + "'",
        "wal_level = logical",
        "max_replication_slots = 8",
        "max_wal_senders = 8",
        "max_connections = 100",
        "fsync = on",
        "autovacuum = off",
        "max_wal_size = 1GB",
        "") + "\n";
    // Appended by root to a file owned by postgres: the owner stays postgres.
    Files.writeString(dataDir().resolve("postgresql.conf"), conf, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  /** Stops the server ({@code pg_ctl stop -m fast}) and deletes the folder. Idempotent. */
  @Override
  public void close() throws IOException, InterruptedException {
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
    try {
      if (Files.exists(dataDir().resolve("postmaster.pid"))) {
        asPostgres(List.of(BIN.resolve("pg_ctl").toString(), "-D", dataDir().toString(), "-m", "fast", "-w", "-t",
            "60", "stop"));
      }
    } finally {
      delete(dir);
    }
  }

  private void stopQuietly() {
    try {
      close();
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("cannot stop or delete the private PostgreSQL cluster in " + dir + ": " + e);
    }
  }

  private static void delete(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void asPostgres(List<String> command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(List.of("runuser", "-u", OS_USER, "--"));
    full.addAll(command);
    run(full);
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).directory(Path.of("/tmp").toFile()).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("`" + String.join(" ", command) + "` did not finish in 120 s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("`" + String.join(" ", command) + "` exited " + p.exitValue() + ": "
          + new String(out, StandardCharsets.UTF_8).strip());
    }
  }
}
