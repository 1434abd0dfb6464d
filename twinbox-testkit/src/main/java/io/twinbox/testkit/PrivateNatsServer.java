package io.twinbox.testkit;

import io.twinbox.testkit.internal.ChildProcess;
import io.twinbox.testkit.internal.Directories;
import io.twinbox.testkit.internal.FreePorts;
import io.twinbox.testkit.internal.NativeServers;
import io.twinbox.testkit.internal.StaleDirectories;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A NATS server with JetStream of its own ({@code /usr/sbin/nats-server}), for tests and fault runs
 * that {@code kill -9} the broker without touching the machine's shared server on 4222.
 *
 * <p>It runs {@code nats-server -a 127.0.0.1 -p <port> -js -sd <home>/jetstream -l
 * <home>/nats.log} — the flags of the shared server, on a free port below the kernel's ephemeral
 * range (so that no outgoing connection can take it while the server is down) and with its own
 * file store. {@link #kill()} is {@code SIGKILL}; {@link #restart()} starts the same binary on the
 * same port and store, so file-backed streams come back with what the server had written to its
 * files (a process kill leaves written pages in the OS cache; JetStream's periodic fsync matters only
 * for a power cut, which this does not play). Ready means a TCP
 * client receives the server's {@code INFO} line with {@code "jetstream":true}.
 *
 * <pre>{@code
 * try (PrivateNatsServer nats = PrivateNatsServer.start()) {
 *   Connection c = Nats.connect(nats.url());
 *   nats.kill();
 *   nats.restart();
 * }
 * }</pre>
 *
 * <p>{@link #close()} kills the server and deletes the JetStream store (the whole folder when it
 * was a temporary one). A JVM shutdown hook does the same for servers still running at exit; a
 * server left behind by a JVM killed with {@code -9} is killed, and its temporary folder deleted,
 * by the next {@link #start()} in any JVM.
 *
 * <p>Thread-safe: state changes are serialised.
 */
public final class PrivateNatsServer implements AutoCloseable {
  /** Where Debian's {@code nats-server} package puts the server. */
  public static final Path BINARY = Path.of("/usr/sbin/nats-server");

  private static final Logger LOG = LoggerFactory.getLogger(PrivateNatsServer.class);
  private static final String DIR_PREFIX = "twinbox-nats-";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration KILL_TIMEOUT = Duration.ofSeconds(20);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 40;
  private static final Set<PrivateNatsServer> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(
        () -> LIVE.forEach(PrivateNatsServer::reap), "twinbox-nats-reaper"));
  }

  private final Path home;
  private final boolean deleteHome;
  private int port;
  // Volatile so that the shutdown hook can kill it without taking the lock.
  private volatile Process process;
  private long lastPid = -1;
  private boolean closed;

  private PrivateNatsServer(Path home, boolean deleteHome) {
    this.home = home;
    this.deleteHome = deleteHome;
  }

  /** True when {@link #BINARY} is installed. */
  public static boolean installed() {
    return Files.isExecutable(BINARY);
  }

  /**
   * Starts a server in a new temporary folder, deleted whole at {@link #close()}, and waits until
   * it is ready.
   *
   * @throws IllegalStateException when {@code nats-server} is not installed, or the server is not
   *     ready within 30 s (the message holds the tail of its log)
   */
  public static PrivateNatsServer start() {
    Path dir;
    try {
      dir = Files.createTempDirectory(DIR_PREFIX).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder for NATS", e);
    }
    StaleDirectories.markOwned(dir);
    NativeServers.sweep(dir.getParent(), DIR_PREFIX);
    return start(dir, true);
  }

  /**
   * Starts a server in {@code home} (emptied first if it exists); {@link #close()} deletes only the
   * JetStream store there and keeps the log.
   *
   * @throws IllegalStateException as {@link #start()}
   */
  public static PrivateNatsServer start(Path home) {
    Path dir = home.toAbsolutePath();
    try {
      if (Files.exists(dir)) {
        Directories.deleteRecursively(dir);
      }
      Files.createDirectories(dir);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("cannot make the folder of a private NATS server: " + dir, e);
    }
    return start(dir, false);
  }

  private static PrivateNatsServer start(Path dir, boolean deleteHome) {
    if (!installed()) {
      if (deleteHome) {
        Directories.deleteRecursively(dir);
      }
      throw new IllegalStateException("nats-server is not installed at " + BINARY + " (Debian package nats-server)");
    }
    PrivateNatsServer server = new PrivateNatsServer(dir, deleteHome);
    LIVE.add(server);
    try {
      server.firstStart();
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  /** The client port on 127.0.0.1; the same across restarts. */
  public synchronized int port() {
    return port;
  }

  /** {@code nats://127.0.0.1:<port>}. */
  public synchronized String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** The folder holding the store and the log. */
  public Path home() {
    return home;
  }

  /** JetStream's store directory ({@code -sd}). */
  public Path storeDir() {
    return home.resolve("jetstream");
  }

  /** The server's log ({@code -l}), also receiving its stdout and stderr. */
  public Path logFile() {
    return home.resolve("nats.log");
  }

  /** True while the server's process is alive (it may still be starting). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The pid of the current process, or of the last one once killed.
   *
   * @throws IllegalStateException when no process was ever started
   */
  public synchronized long pid() {
    if (lastPid < 0) {
      throw new IllegalStateException("the server was never started");
    }
    return lastPid;
  }

  /** {@code SIGKILL} to the server; returns when its process is gone. Does nothing when it is not running. */
  public synchronized void kill() {
    Process p = process;
    if (p != null && p.isAlive() && !NativeServers.killTree(p.toHandle(), KILL_TIMEOUT)) {
      throw new IllegalStateException("nats-server pid " + p.pid() + " did not die within " + KILL_TIMEOUT);
    }
    process = null;
  }

  /**
   * Starts the server again on the same port with the same store (a running one is killed first)
   * and waits until it is ready; JetStream recovers its streams before it accepts clients.
   * Launches are retried while the process exits early (its port still held) until 30 s have
   * passed.
   *
   * @throws IllegalStateException when it is not ready within 30 s, with the tail of the log
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("the server is closed");
    }
    kill();
    long started = System.nanoTime();
    long deadline = started + READY_TIMEOUT.toNanos();
    while (true) {
      launch();
      if (awaitReady(deadline)) {
        LOG.info("private NATS pid {} ready again on {} in {} ms", lastPid, url(), millisSince(started));
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw notReady("kept exiting during restart (last exit " + process.exitValue() + ")");
      }
      LOG.warn("private NATS exited during restart (exit {}); launching it again", process.exitValue());
      NativeServers.sleep(250);
    }
  }

  /** Kills the server and deletes the store (the whole folder when it is a temporary one). Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        kill();
      } finally {
        LIVE.remove(this);
        try {
          Directories.deleteRecursively(deleteHome ? home : storeDir());
        } catch (UncheckedIOException e) {
          LOG.warn("cannot delete {}", home, e);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "private NATS server on 127.0.0.1:" + port + " (" + home + ")";
  }

  private synchronized void firstStart() {
    for (int attempt = 1; ; attempt++) {
      port = FreePorts.pick(1)[0];
      long started = System.nanoTime();
      launch();
      if (awaitReady(started + READY_TIMEOUT.toNanos())) {
        LOG.info("private NATS pid {} ready on {} in {} ms (dir {})", lastPid, url(), millisSince(started), home);
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw notReady("exited with code " + process.exitValue());
      }
      LOG.warn("private NATS exited during start (exit {}); trying another port. Log:\n{}",
          process.exitValue(), ChildProcess.tail(logFile(), 10));
    }
  }

  private void launch() {
    process = NativeServers.launch(List.of(BINARY.toString(), "-a", "127.0.0.1", "-p", Integer.toString(port),
        "-js", "-sd", storeDir().toString(), "-l", logFile().toString()), Map.of(), home, logFile());
    lastPid = process.pid();
  }

  /** True once ready; false when the process died first; kills it and throws at the deadline. */
  private boolean awaitReady(long deadlineNanos) {
    while (System.nanoTime() - deadlineNanos < 0) {
      if (!process.isAlive()) {
        return false;
      }
      if (answersInfo()) {
        return true;
      }
      NativeServers.sleep(50);
    }
    kill();
    throw notReady("not ready within " + READY_TIMEOUT.toSeconds() + " s");
  }

  /** True when a client on the port receives an {@code INFO} line announcing JetStream. */
  private boolean answersInfo() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      s.setSoTimeout(2_000);
      String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
      return line != null && line.startsWith("INFO ") && line.contains("\"jetstream\":true");
    } catch (IOException e) {
      return false;
    }
  }

  /** Shutdown hook: kills without taking the lock, which a stuck test thread may hold. */
  private void reap() {
    Process p = process;
    if (p != null && p.isAlive()) {
      NativeServers.killTree(p.toHandle(), Duration.ofSeconds(10));
    }
    try {
      Directories.deleteRecursively(deleteHome ? home : storeDir());
    } catch (UncheckedIOException e) {
      // The JVM is exiting; a leftover folder is all that can go wrong.
    }
  }

  private IllegalStateException notReady(String what) {
    return new IllegalStateException("private NATS server on 127.0.0.1:" + port + " " + what + "; last lines of "
        + logFile() + ":\n" + ChildProcess.tail(logFile(), LOG_TAIL_LINES));
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
