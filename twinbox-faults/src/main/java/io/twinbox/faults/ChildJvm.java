package io.twinbox.faults;

import io.twinbox.testkit.internal.ChildProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One child JVM of a fault run (producer, relay or consumer), started through the testkit's
 * {@link ChildProcess} and restartable with the same arguments after a kill. Its output goes to
 * one log file across restarts. Not thread-safe: driven by the run and its nemesis in turn.
 */
final class ChildJvm {
  private static final List<String> JVM_OPTIONS = List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
      "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn",
      "-Dorg.slf4j.simpleLogger.log.com.zaxxer.hikari=warn");

  final String name;
  private final Path dir;
  private final Path log;
  private final String mainClass;
  private final List<String> args;
  private final String startedMarker;
  private final Map<String, String> environment;
  private Process process;
  private int starts;

  ChildJvm(String name, Path dir, String mainClass, List<String> args, String startedMarker) {
    this(name, dir, mainClass, args, startedMarker, Map.of());
  }

  /** A child with {@code environment} added to its environment at every launch. */
  ChildJvm(String name, Path dir, String mainClass, List<String> args, String startedMarker,
      Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
    this.name = name;
    this.dir = dir;
    this.log = dir.resolve(name + ".log");
    this.mainClass = mainClass;
    this.args = List.copyOf(args);
    this.startedMarker = startedMarker;
  }

  /** Launches the JVM; {@link #awaitStarted} waits for it. */
  void launch() {
    // ChildProcess writes one classpath file per launch, so children can share the run's folder.
    process = ChildProcess.start(dir, log, JVM_OPTIONS, mainClass, args, environment);
    starts++;
  }

  /** Waits until the current process printed its start marker (once per start). */
  void awaitStarted(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count(startedMarker) < starts) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " did not start; log:\n" + ChildProcess.tail(log, 40));
      }
      sleep(100);
    }
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The current process's pid, -1 before the first launch; a restart has a new one (the soak's samples). */
  long pid() {
    return process == null ? -1 : process.pid();
  }

  /** {@code kill -9} and wait for the exit. */
  void kill9() {
    process.toHandle().destroyForcibly();
    waitExit(Duration.ofSeconds(20));
  }

  /** Waits up to {@code timeout} for the process to exit by itself; true when it did. */
  boolean awaitExit(Duration timeout) {
    return waitExit(timeout);
  }

  /** SIGTERM (graceful: shutdown hooks run) and wait; killed after 60 s. */
  void terminate() {
    // Not Process.destroy(): it also closes the child's stdin, and ChildMain then halts the child.
    process.toHandle().destroy();
    if (!waitExit(Duration.ofSeconds(60))) {
      process.toHandle().destroyForcibly();
      waitExit(Duration.ofSeconds(20));
    }
  }

  /** SIGSTOP, sleep, SIGCONT: a process frozen by a GC pause, a VM stall or a debugger. */
  void pause(Duration pause) {
    signal("STOP");
    try {
      sleep(pause.toMillis());
    } finally {
      signal("CONT");
    }
  }

  void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
          .redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The current process's peak resident set size in KiB ({@code VmHWM} of {@code /proc/<pid>/status}),
   * or 0 where there is no such file (C10: the relay's memory through a huge backlog).
   */
  long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or the process is gone
    }
    return 0;
  }

  /** The last line starting with {@code prefix}, or null. */
  String lastLine(String prefix) {
    String found = null;
    for (String line : text().split("\n")) {
      if (line.startsWith(prefix)) {
        found = line;
      }
    }
    return found;
  }

  int count(String marker) {
    int n = 0;
    for (String line : text().split("\n")) {
      if (line.startsWith(marker)) {
        n++;
      }
    }
    return n;
  }

  String tail(int lines) {
    return ChildProcess.tail(log, lines);
  }

  /** Every line of the log (all starts). */
  List<String> lines() {
    return List.of(text().split("\n"));
  }

  private String text() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private boolean waitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
