package io.twinbox.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 * The lifecycle of a server binary that the testkit runs as a child process of its own on free
 * ports, to {@code kill -9} and restart it in fault tests: the folder it runs in, the first start,
 * {@link #kill()}, {@link #restart()}, {@link #close()} and the JVM shutdown hook that kills what
 * is still running at exit. A subclass says what differs: the command line and environment, the
 * files to write before a first start, the readiness probe, its logs, and what {@link #close()}
 * deletes in a folder the caller gave.
 *
 * <p>Each server is started in a folder that is either a new temporary one ({@code
 * <prefix>*}, marked as this JVM's; deleted whole by {@link #close()}, and by the next start in
 * any JVM when this one dies without running its shutdown hooks, together with the server left
 * running in it) or one the caller gave (emptied first; {@link #close()} deletes only {@link
 * #dataDir()} there and keeps the logs). A first start picks free ports below the kernel's
 * ephemeral range (so that no outgoing connection can take them while the server is down) and tries
 * new ones up to three times when the process exits before it is ready (a port taken meanwhile).
 * Ready is what {@link #ready()} says, polled until the server's ready timeout; a server that is
 * not ready by then is killed and the failure carries the tail of its logs.
 *
 * <p>An abstract class rather than a helper that the servers compose: the lifecycle is their
 * public API ({@code isRunning}, {@code pid}, {@code kill}, {@code restart}, {@code close}, {@code
 * port}, {@code home}), and inheriting it keeps one copy of those methods as well as of the code,
 * and one lock ({@code this}) for the lifecycle and a subclass's own accessors; composing would have
 * each server forward every method and keep a second lock in step. The constructor is protected and
 * the class is in the testkit's internal package: use the servers, not this type.
 *
 * <p>Thread-safe: state changes are serialised on the server; the shutdown hook kills without
 * taking the lock, which a stuck test thread may hold.
 */
public abstract class NativeServer implements AutoCloseable {
  /** How long {@link #kill()} waits for the processes to be gone. */
  protected static final Duration KILL_TIMEOUT = Duration.ofSeconds(20);
  /** How many lines of each log a failure message holds. */
  protected static final int LOG_TAIL_LINES = 40;

  private static final int START_ATTEMPTS = 3;
  private static final Set<NativeServer> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(
        () -> LIVE.forEach(NativeServer::reap), "twinbox-native-server-reaper"));
  }

  /**
   * What a kind of server is called and how long it takes.
   *
   * @param name what log lines and messages call it, e.g. {@code private NATS server}
   * @param dirPrefix the prefix of its temporary folders
   * @param ports how many ports a first start picks
   * @param readyTimeout how long a start or restart may take to be ready
   * @param pollMillis the pause between two {@link #ready()} probes
   * @param relaunchMillis the pause before a restart launches again a process that exited early
   */
  public record Kind(String name, String dirPrefix, int ports, Duration readyTimeout, long pollMillis,
      long relaunchMillis) {}

  private final Logger log = LoggerFactory.getLogger(getClass());
  private final Kind kind;
  private final Path home;
  private final boolean deleteHome;
  // Volatile so that the shutdown hook, and the accessors, read them without taking the lock.
  private volatile int[] ports;
  private volatile Process process;
  private long lastPid = -1;
  private boolean closed;

  /**
   * Makes the server's folder: a new temporary one when {@code home} is null (after killing the
   * servers and deleting the folders that dead JVMs left), else {@code home}, emptied.
   */
  protected NativeServer(Kind kind, Path home) {
    this.kind = kind;
    this.deleteHome = home == null;
    this.home = deleteHome ? temporaryFolder(kind) : emptyFolder(kind, home.toAbsolutePath());
    this.ports = new int[kind.ports()];
  }

  /**
   * Starts {@code server} for the first time and waits until it is ready; the shutdown hook kills
   * it if the JVM exits first. A failure closes it before it is thrown.
   */
  protected static <S extends NativeServer> S started(S server) {
    LIVE.add(server);
    try {
      ((NativeServer) server).firstStart();
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  /** The port clients connect to on 127.0.0.1 (the first one picked); the same across restarts. */
  public int port() {
    return ports[0];
  }

  /** The folder the server runs in, holding its data and logs. */
  public Path home() {
    return home;
  }

  /** True while the server's process is alive (it may still be starting or recovering). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The pid of the server's current process, or of the last one once killed.
   *
   * @throws IllegalStateException when no process was ever started
   */
  public synchronized long pid() {
    if (lastPid < 0) {
      throw new IllegalStateException(this + " was never started");
    }
    return lastPid;
  }

  /**
   * {@code SIGKILL} to the server's process and everything it forked, at once, as a crash would;
   * returns when they are gone. Does nothing when it is not running.
   *
   * @throws IllegalStateException when they are not gone within 20 s
   */
  public synchronized void kill() {
    Process p = process;
    if (p != null && p.isAlive() && !NativeServers.killTree(p.toHandle(), KILL_TIMEOUT)) {
      throw new IllegalStateException(this + " (pid " + p.pid() + ") did not die within " + KILL_TIMEOUT);
    }
    process = null;
  }

  /**
   * Starts the server again on the same ports with the same data (a running one is killed first)
   * and waits until it is ready, which it is only once it has recovered its data. Launches are
   * retried while the process exits early (a port still held) until the ready timeout has passed.
   *
   * @throws IllegalStateException when it is closed, or not ready within its ready timeout (the
   *     time {@code start()} allows), with the tail of its logs
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
    kill();
    long started = System.nanoTime();
    long deadline = started + kind.readyTimeout().toNanos();
    while (true) {
      launch();
      if (awaitReady(deadline)) {
        log.info("{} pid {} ready again in {} ms", this, lastPid, millisSince(started));
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw notReady("kept exiting during restart (last exit " + process.exitValue() + ")");
      }
      log.warn("{} exited during restart (exit {}); launching it again", this, process.exitValue());
      NativeServers.sleep(kind.relaunchMillis());
    }
  }

  /**
   * Kills the server and deletes its {@link #dataDir()} (the whole folder when it is a temporary
   * one). Idempotent.
   */
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
          Directories.deleteRecursively(deleteHome ? home : dataDir());
        } catch (UncheckedIOException e) {
          log.warn("cannot delete {}", home, e);
        }
        cleanUp();
      }
    }
  }

  @Override
  public String toString() {
    return kind.name() + " on 127.0.0.1:" + port() + " (" + home + ")";
  }

  /** The port picked at {@code index} (0 is {@link #port()}). */
  protected final int port(int index) {
    return ports[index];
  }

  /**
   * What {@link #close()} deletes in a folder the caller gave: the server's data. The shutdown hook
   * calls it without the lock.
   */
  protected abstract Path dataDir();

  /** Runs once before the first launch, in the empty folder; nothing by default. */
  protected void install() {}

  /** Runs before each launch of a first start, once the ports are picked; nothing by default. */
  protected void configure() {}

  /** The command line that starts the server in the foreground. */
  protected abstract List<String> command();

  /** What the server's process gets in its environment besides this JVM's; nothing by default. */
  protected Map<String, String> environment() {
    return Map.of();
  }

  /**
   * The server's logs: the first receives its stdout and stderr and is always quoted in a failure;
   * the others are quoted when they exist.
   */
  protected abstract List<Path> logs();

  /** True when the server is ready for clients; called every {@link Kind#pollMillis()} while it starts. */
  protected abstract boolean ready();

  /**
   * Runs after {@link #close()} and at JVM exit, after the folder is deleted; nothing by default.
   * The shutdown hook calls it without the lock.
   */
  protected void cleanUp() {}

  private synchronized void firstStart() {
    install();
    for (int attempt = 1; ; attempt++) {
      ports = FreePorts.pick(ports.length);
      configure();
      long started = System.nanoTime();
      launch();
      if (awaitReady(started + kind.readyTimeout().toNanos())) {
        log.info("{} pid {} ready in {} ms", this, lastPid, millisSince(started));
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw notReady("exited with code " + process.exitValue());
      }
      log.warn("{} exited during start (exit {}); trying other ports. Log:\n{}", this, process.exitValue(),
          ChildProcess.tail(logs().get(0), 10));
    }
  }

  private void launch() {
    process = NativeServers.launch(command(), environment(), home, logs().get(0));
    lastPid = process.pid();
  }

  /** True once ready; false when the process died first; kills it and throws at the deadline. */
  private boolean awaitReady(long deadlineNanos) {
    while (System.nanoTime() - deadlineNanos < 0) {
      if (!process.isAlive()) {
        return false;
      }
      if (ready()) {
        return true;
      }
      NativeServers.sleep(kind.pollMillis());
    }
    kill();
    throw notReady("not ready within " + kind.readyTimeout().toSeconds() + " s");
  }

  /** Shutdown hook: kills without taking the lock, which a stuck test thread may hold. */
  private void reap() {
    Process p = process;
    if (p != null && p.isAlive()) {
      NativeServers.killTree(p.toHandle(), Duration.ofSeconds(10));
    }
    try {
      Directories.deleteRecursively(deleteHome ? home : dataDir());
    } catch (UncheckedIOException e) {
      // The JVM is exiting; a leftover folder is all that can go wrong.
    }
    cleanUp();
  }

  private IllegalStateException notReady(String what) {
    StringBuilder message = new StringBuilder().append(this).append(' ').append(what);
    List<Path> logs = logs();
    for (int i = 0; i < logs.size(); i++) {
      if (i == 0 || Files.exists(logs.get(i))) {
        message.append(i == 0 ? "; " : "\n").append("last lines of ").append(logs.get(i)).append(":\n")
            .append(ChildProcess.tail(logs.get(i), LOG_TAIL_LINES));
      }
    }
    return new IllegalStateException(message.toString());
  }

  private static Path temporaryFolder(Kind kind) {
    Path dir;
    try {
      dir = Files.createTempDirectory(kind.dirPrefix()).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder for a " + kind.name(), e);
    }
    StaleDirectories.markOwned(dir);
    NativeServers.sweep(dir.getParent(), kind.dirPrefix());
    return dir;
  }

  private static Path emptyFolder(Kind kind, Path dir) {
    try {
      if (Files.exists(dir)) {
        Directories.deleteRecursively(dir);
      }
      Files.createDirectories(dir);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("cannot make the folder of a " + kind.name() + ": " + dir, e);
    }
    return dir;
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
