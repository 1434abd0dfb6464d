package io.twinbox.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks the testkit's temporary directories with their owning JVM, and deletes those whose owner
 * died without cleaning up (killed by a build timeout, say, so that no shutdown hook ran).
 */
public final class StaleDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(StaleDirectories.class);
  private static final String OWNER_FILE = "owner";
  /** How far two readings of one process's start instant may differ (boot time in whole seconds). */
  static final Duration START_TOLERANCE = Duration.ofSeconds(3);

  private StaleDirectories() {}

  /** Records the current JVM (pid and start time) as the owner of {@code dir}. */
  public static void markOwned(Path dir) {
    ProcessHandle self = ProcessHandle.current();
    String start = self.info().startInstant().map(Instant::toString).orElse("?");
    try {
      Files.writeString(dir.resolve(OWNER_FILE), self.pid() + " " + start,
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the owner of " + dir, e);
    }
  }

  /**
   * Deletes the directories named {@code prefix*} in {@code parent} whose recorded owner is no
   * longer running. Directories without an owner record, or whose owner cannot be checked, are
   * left alone. Best effort: failures are logged, never thrown.
   */
  public static void sweep(Path parent, String prefix) {
    sweep(parent, prefix, dir -> { });
  }

  /**
   * As {@link #sweep(Path, String)}, running {@code beforeDelete} on each stale directory first —
   * e.g. to kill a native server process that its dead owner left running in it.
   */
  public static void sweep(Path parent, String prefix, Consumer<Path> beforeDelete) {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, prefix + "*")) {
      for (Path dir : dirs) {
        if (ownerGone(dir)) {
          LOG.info("deleting {}, left behind by a JVM that is gone", dir);
          beforeDelete.accept(dir);
          Directories.deleteRecursively(dir);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not sweep stale directories {}* in {}", prefix, parent, e);
    }
  }

  private static boolean ownerGone(Path dir) throws IOException {
    Path file = dir.resolve(OWNER_FILE);
    if (!Files.isRegularFile(file)) {
      return false;
    }
    String[] owner = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
    if (owner.length != 2 || owner[1].equals("?")) {
      return false;
    }
    Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(owner[0]));
    if (process.isEmpty() || !process.get().isAlive()) {
      return true;
    }
    // The pid is in use; it is the owner only if it started at the recorded instant. The JDK derives
    // a start instant from the kernel's boot time, which it reads in whole seconds from /proc/stat;
    // that figure moves by a second when the clock is adjusted, so two JVMs may see the same
    // process start a second apart. A reused pid starting within the tolerance is not a concern.
    Instant recorded;
    try {
      recorded = Instant.parse(owner[1]);
    } catch (DateTimeParseException e) {
      return false;
    }
    return process.get().info().startInstant()
        .map(start -> Duration.between(start, recorded).abs().compareTo(START_TOLERANCE) > 0)
        .orElse(false);
  }
}
