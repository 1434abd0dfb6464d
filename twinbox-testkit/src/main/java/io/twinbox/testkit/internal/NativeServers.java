package io.twinbox.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server binaries run as child processes of this JVM ({@code nats-server}, {@code mariadbd}, a
 * RabbitMQ node): launched with their output appended to a log, killed with {@code SIGKILL}
 * together with everything they forked, and recorded by pid in their folder, so that a later JVM
 * can kill a server whose owner died without running its shutdown hooks ({@code kill -9} of the
 * test JVM, a build timeout) before it deletes the folder.
 *
 * <p>Stateless and thread-safe.
 */
public final class NativeServers {
  /** The file in a server's folder that holds the pid of its current process. */
  public static final String PID_FILE = "server.pid";

  private static final Logger LOG = LoggerFactory.getLogger(NativeServers.class);

  private NativeServers() {}

  /**
   * Starts {@code command} in {@code dir} with stdin from {@code /dev/null}, stdout and stderr
   * appended to {@code output}, the current environment plus {@code env}, and records its pid.
   *
   * @throws IllegalStateException when the binary cannot be started
   */
  public static Process launch(List<String> command, Map<String, String> env, Path dir, Path output) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      recordPid(dir, p.pid());
      return p;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run `" + String.join(" ", command) + "`", e);
    }
  }

  /** Writes {@code pid} to {@value #PID_FILE} in {@code dir}. */
  public static void recordPid(Path dir, long pid) {
    try {
      Files.writeString(dir.resolve(PID_FILE), Long.toString(pid), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the pid file in " + dir, e);
    }
  }

  /**
   * {@code SIGKILL} to {@code root} and all its descendants at once, then waits for each of them.
   *
   * @return true when all are gone within {@code timeout}
   */
  public static boolean killTree(ProcessHandle root, Duration timeout) {
    List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
    all.add(0, root);
    all.forEach(ProcessHandle::destroyForcibly);
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean gone = true;
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (Exception e) {
        gone = false;
      }
    }
    return gone;
  }

  /**
   * Kills the server recorded in {@code dir}'s {@value #PID_FILE} if that process still runs and
   * its command line names {@code dir} (so that a reused pid is left alone). Best effort.
   */
  public static void reapOrphan(Path dir) {
    try {
      Path file = dir.resolve(PID_FILE);
      if (!Files.isRegularFile(file)) {
        return;
      }
      long pid = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
      Optional<ProcessHandle> h = ProcessHandle.of(pid);
      String where = dir.toAbsolutePath().toString();
      if (h.isPresent() && h.get().isAlive()
          && h.get().info().commandLine().map(c -> c.contains(where)).orElse(false)) {
        LOG.info("killing server pid {} left running in {} by a JVM that is gone", pid, dir);
        killTree(h.get(), Duration.ofSeconds(20));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not reap the server left in {}", dir, e);
    }
  }

  /**
   * Kills the servers left in the temporary directories {@code prefix*} whose owning JVM is gone,
   * and deletes those directories (see {@link StaleDirectories}).
   */
  public static void sweep(Path parent, String prefix) {
    StaleDirectories.sweep(parent, prefix, NativeServers::reapOrphan);
  }

  /** Sleeps; an interrupt is restored and turned into an {@link IllegalStateException}. */
  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
