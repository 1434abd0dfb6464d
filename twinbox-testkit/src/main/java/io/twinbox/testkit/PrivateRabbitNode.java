package io.twinbox.testkit;

import io.twinbox.testkit.internal.ChildProcess;
import io.twinbox.testkit.internal.Directories;
import io.twinbox.testkit.internal.FreePorts;
import io.twinbox.testkit.internal.NativeServers;
import io.twinbox.testkit.internal.StaleDirectories;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ node of its own, for tests and fault runs that {@code kill -9} the broker without
 * touching the machine's shared node {@code rabbit@localhost} (AMQP on 5672, distribution on 25672).
 *
 * <p>The installed server's own start script ({@code rabbitmq-server} of the Debian package, called
 * directly, not through the wrapper that switches to the {@code rabbitmq} user) runs as node {@code
 * tb<port>@localhost} with everything of its own: AMQP and distribution ports on 127.0.0.1 picked
 * below the kernel's ephemeral range (so that no outgoing connection can take them while the node
 * is down), Mnesia and message store, logs, an empty plugin list, a {@code rabbitmq.conf}, an empty
 * {@code rabbitmq-env.conf} (so the machine's {@code /etc/rabbitmq/rabbitmq-env.conf} and its node
 * name are not read) and a {@code HOME} for the Erlang cookie. Only the machine's {@code epmd} is
 * shared, where the node registers its name. {@code RUNNING_UNDER_SYSTEMD} makes the script {@code
 * exec} the Erlang VM, so the launched process is {@code beam.smp} itself; {@link #kill()} sends
 * {@code SIGKILL} to it and to its helpers ({@code erl_child_setup}, {@code inet_gethost}) at once.
 * {@link #restart()} starts the node again with the same ports and data: durable queues and their
 * persistent messages come back (a quorum queue's log is fsynced before a publisher confirm).
 * Ready means the AMQP listener answers the protocol header with {@code connection.start}; the
 * user is {@code guest}/{@code guest}, allowed from loopback.
 *
 * <p>{@link #close()} kills the node and deletes its data (the whole folder when it was a temporary
 * one). A JVM shutdown hook does the same for nodes still running at exit; a node left behind by a
 * JVM killed with {@code -9} is killed, and its temporary folder deleted, by the next {@link
 * #start()} in any JVM.
 *
 * <p>Thread-safe: state changes are serialised.
 */
public final class PrivateRabbitNode implements AutoCloseable {
  /** The Debian package's link to the server's start script. */
  public static final Path SCRIPT = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");

  private static final Logger LOG = LoggerFactory.getLogger(PrivateRabbitNode.class);
  private static final String DIR_PREFIX = "twinbox-rabbit-";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration KILL_TIMEOUT = Duration.ofSeconds(20);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 40;
  private static final byte[] AMQP_091_HEADER = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};
  private static final Set<PrivateRabbitNode> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(
        () -> LIVE.forEach(PrivateRabbitNode::reap), "twinbox-rabbit-reaper"));
  }

  private final Path home;
  private final boolean deleteHome;
  private final Path script;
  private int port;
  private int distPort;
  // Volatile so that the shutdown hook can kill it without taking the lock.
  private volatile Process process;
  private long lastPid = -1;
  private boolean closed;

  private PrivateRabbitNode(Path home, boolean deleteHome, Path script) {
    this.home = home;
    this.deleteHome = deleteHome;
    this.script = script;
  }

  /** True when the server's start script is installed. */
  public static boolean installed() {
    return Files.isExecutable(SCRIPT);
  }

  /**
   * Starts a node in a new temporary folder (deleted whole at {@link #close()}) and waits until it
   * accepts AMQP connections.
   *
   * @throws IllegalStateException when RabbitMQ is not installed, or the node is not ready within
   *     90 s (the message holds the tail of its log)
   */
  public static PrivateRabbitNode start() {
    Path dir;
    try {
      dir = Files.createTempDirectory(DIR_PREFIX).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder for RabbitMQ", e);
    }
    StaleDirectories.markOwned(dir);
    NativeServers.sweep(dir.getParent(), DIR_PREFIX);
    return start(dir, true);
  }

  /**
   * As {@link #start()} in {@code home} (emptied first if it exists); {@link #close()} deletes only
   * the node's data there and keeps the logs.
   */
  public static PrivateRabbitNode start(Path home) {
    Path dir = home.toAbsolutePath();
    try {
      if (Files.exists(dir)) {
        Directories.deleteRecursively(dir);
      }
      Files.createDirectories(dir);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("cannot make the folder of a private RabbitMQ node: " + dir, e);
    }
    return start(dir, false);
  }

  private static PrivateRabbitNode start(Path dir, boolean deleteHome) {
    Path script;
    try {
      // The real script, not the wrapper that would cd to /var/lib/rabbitmq and switch users.
      script = SCRIPT.toRealPath();
    } catch (IOException e) {
      if (deleteHome) {
        Directories.deleteRecursively(dir);
      }
      throw new IllegalStateException("RabbitMQ is not installed: no " + SCRIPT + " (Debian package rabbitmq-server)");
    }
    PrivateRabbitNode node = new PrivateRabbitNode(dir, deleteHome, script);
    LIVE.add(node);
    try {
      node.firstStart();
      return node;
    } catch (RuntimeException | Error e) {
      node.close();
      throw e;
    }
  }

  /** The AMQP port on 127.0.0.1; the same across restarts. */
  public synchronized int port() {
    return port;
  }

  /** The Erlang distribution port on 127.0.0.1. */
  public synchronized int distributionPort() {
    return distPort;
  }

  /** {@code tb<port>@localhost}. */
  public synchronized String nodeName() {
    return "tb" + port + "@localhost";
  }

  /** The folder holding the node's data, logs and configuration. */
  public Path home() {
    return home;
  }

  /** Mnesia and the message stores ({@code RABBITMQ_MNESIA_BASE}), deleted by {@link #close()}. */
  public Path dataDir() {
    return home.resolve("mnesia");
  }

  /** The node's own log (in {@code RABBITMQ_LOG_BASE}). */
  public synchronized Path logFile() {
    return home.resolve("log").resolve(nodeName() + ".log");
  }

  /** The start script's and the VM's stdout and stderr. */
  public Path consoleLog() {
    return home.resolve("console.log");
  }

  /** True while the node's VM is alive (it may still be booting). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The pid of the node's current {@code beam.smp}, or of the last one once killed.
   *
   * @throws IllegalStateException when the node was never started
   */
  public synchronized long pid() {
    if (lastPid < 0) {
      throw new IllegalStateException("the node was never started");
    }
    return lastPid;
  }

  /**
   * {@code SIGKILL} to the node's VM and its helper processes at once; returns when they are gone.
   * Does nothing when it is not running.
   */
  public synchronized void kill() {
    Process p = process;
    if (p != null && p.isAlive() && !NativeServers.killTree(p.toHandle(), KILL_TIMEOUT)) {
      throw new IllegalStateException("RabbitMQ node " + nodeName() + " (pid " + p.pid() + ") did not die within "
          + KILL_TIMEOUT);
    }
    process = null;
  }

  /**
   * Starts the node again with the same ports and data (a running one is killed first) and waits
   * until it accepts AMQP connections; durable queues are recovered first. Launches are retried
   * while the VM exits early (a port still held) until 90 s have passed.
   *
   * @throws IllegalStateException when it is not ready within 90 s, with the tail of the logs
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("the node is closed");
    }
    kill();
    long started = System.nanoTime();
    long deadline = started + READY_TIMEOUT.toNanos();
    while (true) {
      launch();
      if (awaitReady(deadline)) {
        LOG.info("private RabbitMQ {} pid {} ready again on 127.0.0.1:{} in {} ms", nodeName(), lastPid, port,
            millisSince(started));
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw notReady("kept exiting during restart (last exit " + process.exitValue() + ")");
      }
      LOG.warn("private RabbitMQ exited during restart (exit {}); launching it again", process.exitValue());
      NativeServers.sleep(500);
    }
  }

  /** Kills the node and deletes its data (the whole folder when temporary). Idempotent. */
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
          LOG.warn("cannot delete {}", home, e);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "private RabbitMQ node " + nodeName() + " on 127.0.0.1:" + port + " (" + home + ")";
  }

  private synchronized void firstStart() {
    for (int attempt = 1; ; attempt++) {
      int[] ports = FreePorts.pick(2);
      port = ports[0];
      distPort = ports[1];
      writeConfig();
      long started = System.nanoTime();
      launch();
      if (awaitReady(started + READY_TIMEOUT.toNanos())) {
        LOG.info("private RabbitMQ {} pid {} ready on 127.0.0.1:{} in {} ms (dir {})", nodeName(), lastPid, port,
            millisSince(started), home);
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw notReady("exited with code " + process.exitValue());
      }
      LOG.warn("private RabbitMQ exited during start (exit {}); trying other ports. Log:\n{}",
          process.exitValue(), ChildProcess.tail(consoleLog(), 10));
    }
  }

  private void writeConfig() {
    try {
      Files.createDirectories(home.resolve("home"));
      Files.createDirectories(home.resolve("log"));
      Files.writeString(home.resolve("enabled_plugins"), "[].\n", StandardCharsets.UTF_8);
      Files.writeString(home.resolve("rabbitmq-env.conf"), "", StandardCharsets.UTF_8);
      Files.writeString(home.resolve("rabbitmq.conf"), "# twinbox-testkit PrivateRabbitNode\n"
          + "listeners.tcp.1 = 127.0.0.1:" + port + "\n"
          + "listeners.ssl = none\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the configuration of a private RabbitMQ node in " + home, e);
    }
  }

  private Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", home.resolve("home").toString());
    env.put("RUNNING_UNDER_SYSTEMD", "true");
    env.put("RABBITMQ_CONF_ENV_FILE", home.resolve("rabbitmq-env.conf").toString());
    env.put("RABBITMQ_CONFIG_FILE", home.resolve("rabbitmq.conf").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", home.resolve("enabled_plugins").toString());
    env.put("RABBITMQ_NODENAME", nodeName());
    env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(port));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_MNESIA_BASE", dataDir().toString());
    env.put("RABBITMQ_LOG_BASE", home.resolve("log").toString());
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
    env.put("ERL_FLAGS", "-kernel inet_dist_use_interface {127,0,0,1}");
    return env;
  }

  private void launch() {
    process = NativeServers.launch(List.of(script.toString()), environment(), home, consoleLog());
    lastPid = process.pid();
  }

  /** True once ready; false when the VM exited first; kills it and throws at the deadline. */
  private boolean awaitReady(long deadlineNanos) {
    while (System.nanoTime() - deadlineNanos < 0) {
      if (!process.isAlive()) {
        return false;
      }
      if (answersAmqp()) {
        return true;
      }
      NativeServers.sleep(200);
    }
    kill();
    throw notReady("not ready within " + READY_TIMEOUT.toSeconds() + " s");
  }

  /** True when the AMQP 0-9-1 header is answered by a method frame (connection.start). */
  private boolean answersAmqp() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      s.setSoTimeout(2_000);
      s.getOutputStream().write(AMQP_091_HEADER);
      InputStream in = s.getInputStream();
      return in.read() == 1;
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
      Directories.deleteRecursively(deleteHome ? home : dataDir());
    } catch (UncheckedIOException e) {
      // The JVM is exiting; a leftover folder is all that can go wrong.
    }
  }

  private IllegalStateException notReady(String what) {
    Optional<String> nodeLog = Files.exists(logFile()) ? Optional.of(ChildProcess.tail(logFile(), LOG_TAIL_LINES))
        : Optional.empty();
    return new IllegalStateException(this + " " + what + "; last lines of " + consoleLog() + ":\n"
        + ChildProcess.tail(consoleLog(), LOG_TAIL_LINES)
        + nodeLog.map(t -> "\nlast lines of " + logFile() + ":\n" + t).orElse(""));
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
