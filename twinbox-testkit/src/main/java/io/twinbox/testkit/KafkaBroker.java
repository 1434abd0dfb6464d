package io.twinbox.testkit;

import io.twinbox.testkit.internal.BrokerConfig;
import io.twinbox.testkit.internal.BrokerMain;
import io.twinbox.testkit.internal.ChildMain;
import io.twinbox.testkit.internal.ChildProcess;
import io.twinbox.testkit.internal.Directories;
import io.twinbox.testkit.internal.FreePorts;
import io.twinbox.testkit.internal.StaleDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, single-node Kafka 4 broker (KRaft, combined broker and controller) running in its own
 * JVM, started from the {@code kafka_2.13} artifact on the current classpath.
 *
 * <p>The broker listens on {@code 127.0.0.1} on free ports picked at start (client, controller,
 * and a second client listener for a fault proxy, {@link #linkPort()}; below the kernel's ephemeral port range, so that no outgoing connection can take
 * them while the broker is down) and keeps its data in a temporary directory, formatted by the
 * child JVM itself ({@code kafka.tools.StorageTool format}) before its first start. It is tuned
 * for one node: replication factors 1, {@code num.partitions=4}, topics created on first use
 * (unless started with {@link #startWithoutAutoCreate()}), no group rebalance delay; the child runs with {@code -Xmx512m} and {@code
 * -XX:+ExitOnOutOfMemoryError} and logs to {@link #logFile()}. {@link #kill()} and {@link
 * #restart()} keep the ports and the data, so tests can crash the broker and bring the same one
 * back. A restart after {@code kill -9} takes a few seconds longer than the first start: the node
 * waits until its old registration (a 3 s broker session) has expired.
 *
 * <p>No broker outlives the test JVM: a shutdown hook kills every broker still running, and the
 * child halts by itself when its parent dies without running hooks ({@code kill -9}). Directories
 * left behind by such a death are deleted by the next {@link #start()}.
 *
 * <p>Thread-safe: all methods may be called from any thread; state changes are serialised.
 */
public final class KafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 60;
  private static final int EARLY_EXIT_LINES = 15;
  private static final String DIR_PREFIX = "twinbox-kafka-";
  private static final List<String> JVM_OPTIONS = List.of(
      "-Xms128m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
      "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
  private static final Set<KafkaBroker> LIVE = ConcurrentHashMap.newKeySet();
  private static KafkaBroker shared;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(
        () -> LIVE.forEach(KafkaBroker::reap), "twinbox-kafka-reaper"));
  }

  private final Path dir;
  private final Path dataDir;
  private final Path config;
  private final Path log;
  private final String clusterId = Uuid.randomUuid().toString();
  private final boolean autoCreateTopics;
  private int brokerPort;
  private int controllerPort;
  private int linkPort;
  private int linkProxyPort;
  // Volatile so that the shutdown hook can kill it without waiting for a lock.
  private volatile Process process;
  private long lastPid = -1;
  private boolean closed;

  private KafkaBroker(Path dir, boolean autoCreateTopics) {
    this.dir = dir;
    this.autoCreateTopics = autoCreateTopics;
    this.dataDir = dir.resolve("data");
    this.config = dir.resolve("server.properties");
    this.log = dir.resolve("broker.log");
  }

  /**
   * Starts a new broker in a new temporary directory and waits until it answers a {@code
   * describeCluster} request.
   *
   * @throws IllegalStateException when it is not ready within 90 s; the message holds the tail of
   *     the broker's log
   */
  public static KafkaBroker start() {
    return start(true);
  }

  /**
   * As {@link #start()}, but with {@code auto.create.topics.enable=false}: a producer's record for
   * a topic nobody created waits for metadata that never comes, as on most production clusters.
   * Create topics with {@link #createTopic}.
   */
  public static KafkaBroker startWithoutAutoCreate() {
    return start(false);
  }

  private static KafkaBroker start(boolean autoCreateTopics) {
    Path dir;
    try {
      dir = Files.createTempDirectory(DIR_PREFIX);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for Kafka", e);
    }
    StaleDirectories.markOwned(dir);
    StaleDirectories.sweep(dir.getParent(), DIR_PREFIX);
    KafkaBroker broker = new KafkaBroker(dir, autoCreateTopics);
    LIVE.add(broker);
    try {
      broker.firstStart();
      return broker;
    } catch (RuntimeException | Error e) {
      broker.close();
      throw e;
    }
  }

  /**
   * The broker shared by every test in this JVM, started on first use and killed when the JVM
   * exits. Tests that kill or restart a broker should {@link #start()} their own instead.
   */
  public static synchronized KafkaBroker shared() {
    if (shared == null) {
      shared = start();
    }
    return shared;
  }

  /** True unless started with {@link #startWithoutAutoCreate()}. */
  public boolean autoCreatesTopics() {
    return autoCreateTopics;
  }

  /** The client listener, {@code "127.0.0.1:<port>"}; it stays the same across restarts. */
  public synchronized String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /**
   * The port of the broker's second client listener ({@code LINK}), the one a fault proxy forwards
   * to. It advertises {@link #linkProxyPort()}: a client that bootstraps from a proxy listening
   * there (see {@code TcpProxy.startOn(linkProxyPort(), "127.0.0.1", linkPort())}) opens every
   * later connection through it as well, so the proxy's faults reach all of the client's traffic.
   * Without such a proxy the port refuses connections; {@link #bootstrapServers()} is unaffected.
   * Both ports stay the same across restarts.
   */
  public synchronized int linkPort() {
    return linkPort;
  }

  /** Where a fault proxy for {@link #linkPort()} must listen: the port that listener advertises. */
  public synchronized int linkProxyPort() {
    return linkProxyPort;
  }

  /** The file that receives the broker's output. */
  public Path logFile() {
    return log;
  }

  /**
   * Stops the broker gracefully (SIGTERM) and waits for its process to exit; after 60 s it is
   * killed. Does nothing when it is not running.
   */
  public synchronized void stop() {
    if (isRunning()) {
      // Signal through the ProcessHandle: Process.destroy() would also close the child's stdin.
      process.toHandle().destroy();
      if (!waitForExit(STOP_TIMEOUT)) {
        LOG.warn("Kafka broker pid {} ignored SIGTERM for {}; killing it", lastPid, STOP_TIMEOUT);
        process.toHandle().destroyForcibly();
        waitForExit(STOP_TIMEOUT);
      }
    }
    release();
  }

  /** Kills the broker like {@code kill -9} ({@code SIGKILL}) and waits for its process to exit. */
  public synchronized void kill() {
    if (isRunning()) {
      process.toHandle().destroyForcibly();
      waitForExit(STOP_TIMEOUT);
    }
    release();
  }

  /**
   * Starts the broker again with the same ports and data directory and waits until it is ready;
   * a running broker is {@linkplain #stop() stopped} first. Launches are retried while the process
   * exits early (e.g. a port still held by the previous process) until 90 s have passed.
   *
   * @throws IllegalStateException when it is not ready within 90 s, with the tail of the log
   */
  public synchronized void restart() {
    requireOpen();
    stop();
    long started = System.nanoTime();
    long deadline = started + READY_TIMEOUT.toNanos();
    while (true) {
      launch();
      if (awaitReady(deadline)) {
        LOG.info("Kafka broker pid {} ready again on {} in {} ms", lastPid, bootstrapServers(),
            millisSince(started));
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw notReady("kept exiting during restart (last exit " + process.exitValue() + ")");
      }
      LOG.warn("Kafka broker exited during restart (exit {}); launching it again. Log:\n{}",
          process.exitValue(), ChildProcess.tail(log, EARLY_EXIT_LINES));
      sleep(500);
    }
  }

  /** True while the broker's process is alive (it may still be starting). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The process id of the broker's current JVM, or of the last one when it has been stopped.
   *
   * @throws IllegalStateException when no process was ever started
   */
  public synchronized long pid() {
    if (lastPid < 0) {
      throw new IllegalStateException("the broker was never started");
    }
    return lastPid;
  }

  /**
   * Creates a topic with replication factor 1 and waits until every partition has a leader.
   * Creating a topic that already exists is not an error (its partition count is left as is).
   */
  public void createTopic(String name, int partitions) {
    BrokerAdmin.createTopic(bootstrapServers(), name, partitions);
  }

  /** Kills the broker if it runs and deletes its temporary directory. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      kill();
      try {
        Directories.deleteRecursively(dir);
      } catch (UncheckedIOException e) {
        LOG.warn("cannot delete Kafka directory {}", dir, e);
      }
      LIVE.remove(this);
    }
    forgetShared(this);
  }

  /** Shutdown hook: kills without taking the lock, which a stuck test thread may hold. */
  private void reap() {
    Process p = process;
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      Directories.deleteRecursively(dir);
    } catch (UncheckedIOException e) {
      // The JVM is exiting; a leftover temporary directory is all that can go wrong.
    }
  }

  private static synchronized void forgetShared(KafkaBroker broker) {
    if (shared == broker) {
      shared = null;
    }
  }

  private synchronized void firstStart() {
    for (int attempt = 1; ; attempt++) {
      int[] ports = FreePorts.pick(4);
      brokerPort = ports[0];
      controllerPort = ports[1];
      linkPort = ports[2];
      linkProxyPort = ports[3];
      BrokerConfig.write(config, dataDir, brokerPort, controllerPort, linkPort, linkProxyPort,
          autoCreateTopics);
      long started = System.nanoTime();
      launch();
      if (awaitReady(System.nanoTime() + READY_TIMEOUT.toNanos())) {
        LOG.info("Kafka broker pid {} ready on {} in {} ms (dir {})", lastPid, bootstrapServers(),
            millisSince(started), dir);
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw notReady("exited with code " + process.exitValue());
      }
      LOG.warn("Kafka broker exited during start (exit {}); trying new ports. Log:\n{}",
          process.exitValue(), ChildProcess.tail(log, EARLY_EXIT_LINES));
    }
  }

  private void launch() {
    List<String> options = new ArrayList<>(JVM_OPTIONS);
    options.add("-D" + ChildMain.DELETE_ON_ORPHAN + "=" + dir);
    process = ChildProcess.start(dir, log, options, BrokerMain.class.getName(),
        List.of(config.toString(), dataDir.toString(), clusterId));
    lastPid = process.pid();
  }

  /** True once ready; false when the process died first; throws at the deadline. */
  private boolean awaitReady(long deadlineNanos) {
    boolean ready = BrokerAdmin.awaitReady(bootstrapServers(), brokerPort, process, deadlineNanos);
    if (!ready && process.isAlive()) {
      process.destroyForcibly();
      waitForExit(STOP_TIMEOUT);
      throw notReady("not ready within " + READY_TIMEOUT.toSeconds() + " s");
    }
    return ready;
  }

  /** Forgets the exited process, closing our end of its stdin pipe. */
  private void release() {
    if (process != null) {
      try {
        process.getOutputStream().close();
      } catch (IOException e) {
        // The child is gone; nothing depends on this pipe any more.
      }
    }
    process = null;
  }

  private boolean waitForExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  private IllegalStateException notReady(String what) {
    return new IllegalStateException("Kafka broker on " + bootstrapServers() + " " + what
        + "; last lines of " + log + ":\n" + ChildProcess.tail(log, LOG_TAIL_LINES));
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the broker is closed");
    }
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restarting Kafka", e);
    }
  }
}
