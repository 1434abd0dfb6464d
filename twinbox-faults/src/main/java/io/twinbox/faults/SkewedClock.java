package io.twinbox.faults;

import io.twinbox.faults.child.RelayMain;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Row B7R: a relay JVM whose wall clock is off by a fixed amount, through libfaketime (Debian's
 * {@code faketime} package) preloaded into the child. The monotonic clock stays true ({@code
 * FAKETIME_DONT_FAKE_MONOTONIC}), as on a host whose NTP is wrong: only {@code Instant.now()} and
 * {@code System.currentTimeMillis()} lie. {@link #verify} checks from the relay's start line that the
 * skew took, so a row cannot pass on true clocks by accident.
 */
final class SkewedClock {
  private static final Path LIB_ROOT = Path.of("/usr/lib");
  private static final String LIB = "faketime/libfaketime.so.1";
  private static final Duration TOLERANCE = Duration.ofSeconds(15);

  private SkewedClock() {}

  /** The child environment for a clock {@code seconds} ahead (negative: behind); empty for 0. */
  static Map<String, String> environment(int seconds) {
    if (seconds == 0) {
      return Map.of();
    }
    Path lib = library().orElseThrow(() -> new IllegalStateException("row B7R needs libfaketime, which is "
        + "not installed (" + LIB_ROOT + "/<arch>/" + LIB + "): apt-get install faketime"));
    // Without FAKETIME_FORCE_MONOTONIC_FIX=0 a JVM under libfaketime 0.9.10 runs 4-6 times slower
    // (a tiny program: 8.8 s instead of 1.4 s; relay restarts took 20 s instead of 3).
    return Map.of("LD_PRELOAD", lib.toString(), "FAKETIME", (seconds > 0 ? "+" : "") + seconds + "s",
        "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /**
   * Checks that {@code relay}'s clock, as its last start line printed it, is {@code seconds} off
   * the runner's (within 15 s: the line is read a moment after it was printed); returns the skew
   * seen, in seconds.
   *
   * @throws IllegalStateException when it is not
   */
  static long verify(ChildJvm relay, int seconds) {
    String line = relay.lastLine(RelayMain.STARTED);
    int at = line == null ? -1 : line.indexOf("clock=");
    if (at < 0) {
      throw new IllegalStateException(relay.name + " printed no clock in its start line: " + line);
    }
    Duration seen = Duration.between(Instant.now(), Instant.parse(line.substring(at + 6).trim()));
    if (seen.minusSeconds(seconds).abs().compareTo(TOLERANCE) > 0) {
      throw new IllegalStateException(relay.name + "'s clock is " + seen.toSeconds() + " s off, not " + seconds
          + " s: libfaketime did not take");
    }
    return seen.toSeconds();
  }

  private static Optional<Path> library() {
    try (DirectoryStream<Path> arches = Files.newDirectoryStream(LIB_ROOT)) {
      for (Path arch : arches) {
        Path lib = arch.resolve(LIB);
        if (Files.isRegularFile(lib)) {
          return Optional.of(lib);
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
