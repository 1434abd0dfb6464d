package io.twinbox.it;

import io.twinbox.testkit.internal.ChildProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Relay child JVMs ({@link RelayProcess}) of one scenario, with their logs under
 * {@code target/relay-logs/<scenario>/}. {@link #close()} kills whatever still runs, so a failing
 * test leaves no process behind (the children also halt when this JVM dies: see {@code ChildMain}).
 *
 * <p>Not thread-safe: driven by the test thread.
 */
final class RelayProcesses implements AutoCloseable {
  private static final List<String> JVM_OPTIONS = List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
      "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn",
      "-Dorg.slf4j.simpleLogger.log.com.zaxxer.hikari=warn");

  private final Path dir;
  private final String mainClass;
  private final List<Child> children = new ArrayList<>();
  private final Map<String, List<String>> extraOptions = new HashMap<>();

  RelayProcesses(String scenario) {
    this(scenario, RelayProcess.class);
  }

  /** Relays started from {@code main} (taking {@link RelayProcess}'s arguments and printing its lines). */
  RelayProcesses(String scenario, Class<?> main) {
    this.mainClass = main.getName();
    this.dir = Path.of("target", "relay-logs", scenario).toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes the relay {@code nodeId}, when launched after this call, see every broker ack {@code delay}
   * late (see {@link RelayProcess}), so that nearly all of its time is spent with a batch in flight.
   */
  RelayProcesses slowAcks(String nodeId, Duration delay) {
    extraOptions.put(nodeId, List.of("-D" + RelayProcess.ACK_DELAY_PROPERTY + "=" + delay.toMillis()));
    return this;
  }

  /** Starts relay JVMs side by side (JVM start-up dominates) and waits until all have started. */
  List<Child> startAll(TestDb db, String bootstrap, String topic, Duration leaseTtl, String... nodeIds) {
    List<Child> started = new ArrayList<>();
    for (String nodeId : nodeIds) {
      started.add(launch(db, bootstrap, topic, nodeId, leaseTtl));
    }
    started.forEach(Child::awaitStarted);
    return started;
  }

  /** Launches one more relay JVM without waiting for it ({@link Child#awaitStarted()} does). */
  Child launchOne(TestDb db, String bootstrap, String topic, Duration leaseTtl, String nodeId) {
    return launch(db, bootstrap, topic, nodeId, leaseTtl);
  }

  private Child launch(TestDb db, String bootstrap, String topic, String nodeId, Duration leaseTtl) {
    Path log = dir.resolve(nodeId + ".log");
    try {
      Files.deleteIfExists(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> options = new ArrayList<>(JVM_OPTIONS);
    options.addAll(extraOptions.getOrDefault(nodeId, List.of()));
    Process p = ChildProcess.start(dir, log, options, mainClass,
        List.of(db.jdbcUrl(), db.user(), db.password(), bootstrap, topic, nodeId,
            Long.toString(leaseTtl.toMillis())));
    Child child = new Child(nodeId, p, log);
    children.add(child);
    return child;
  }

  @Override
  public void close() {
    for (Child c : children) {
      c.process.destroyForcibly();
    }
    for (Child c : children) {
      try {
        c.process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One relay JVM. */
  static final class Child {
    final String nodeId;
    final Process process;
    final Path log;

    Child(String nodeId, Process process, Path log) {
      this.nodeId = nodeId;
      this.process = process;
      this.log = log;
    }

    void awaitStarted() {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!logText().contains(RelayProcess.STARTED)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("relay " + nodeId + " did not start; log:\n" + ChildProcess.tail(log, 40));
        }
        sleep(100);
      }
    }

    long pid() {
      return process.pid();
    }

    /** {@code kill -9}: no shutdown hook, no lease release. */
    void kill9() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("relay " + nodeId + " survived SIGKILL");
      }
    }

    void signal(String signal) throws IOException, InterruptedException {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
          .redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: "
            + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    }

    /** SIGTERM, then waits for the graceful close and returns the relay's final counters. */
    Map<String, Long> stopGracefully() throws InterruptedException {
      // Not Process.destroy(): it also closes the child's stdin, and the testkit's ChildMain halts
      // the child on stdin EOF (parent gone) — in the middle of the graceful shutdown hook.
      // ProcessHandle.destroy() only sends SIGTERM.
      process.toHandle().destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("relay " + nodeId + " did not stop within 60 s; log:\n"
            + ChildProcess.tail(log, 40));
      }
      Map<String, Long> stats = lastStats(RelayProcess.FINAL);
      if (stats.isEmpty()) {
        throw new IllegalStateException("relay " + nodeId + " printed no final stats; log:\n"
            + ChildProcess.tail(log, 40));
      }
      return stats;
    }

    /** The counters of the last periodic stats line (empty before the first). */
    Map<String, Long> latestStats() {
      return lastStats(RelayProcess.STATS);
    }

    /** How many periodic stats lines the relay printed so far. */
    int statsLines() {
      int n = 0;
      for (String line : logText().split("\n")) {
        if (line.startsWith(RelayProcess.STATS + " ")) {
          n++;
        }
      }
      return n;
    }

    /** The counters of the {@code index}-th periodic stats line (0-based), or empty. */
    Map<String, Long> statsLine(int index) {
      int n = 0;
      for (String line : logText().split("\n")) {
        if (line.startsWith(RelayProcess.STATS + " ") && n++ == index) {
          return parse(line, RelayProcess.STATS);
        }
      }
      return Map.of();
    }

    private Map<String, Long> lastStats(String prefix) {
      String found = null;
      for (String line : logText().split("\n")) {
        if (line.startsWith(prefix + " ")) {
          found = line;
        }
      }
      return found == null ? new TreeMap<>() : parse(found, prefix);
    }

    private static Map<String, Long> parse(String found, String prefix) {
      Map<String, Long> stats = new TreeMap<>();
      if (found != null) {
        for (String kv : found.substring(prefix.length() + 1).trim().split(" ")) {
          String[] parts = kv.split("=");
          stats.put(parts[0], Long.parseLong(parts[1]));
        }
      }
      return stats;
    }

    String logText() {
      try {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
      } catch (IOException e) {
        return "";
      }
    }
  }
}
