package io.twinbox.faults;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Row B16's filesystem: a tmpfs of a fixed size mounted under the run's folder, holding a private
 * PostgreSQL cluster, that {@link #fill} makes full (a file written until no byte is left) and {@link #free} empties again. Mounting needs root, as the private cluster does. A JVM
 * shutdown hook unmounts it; a mount left by a JVM killed -9 is unmounted by the next run of the
 * row ({@link #unmountStale}).
 */
final class SmallDisk implements AutoCloseable {
  private final Path mountPoint;
  private final Path filler;

  private final Thread hook;

  private SmallDisk(Path mountPoint) {
    this.mountPoint = mountPoint;
    this.filler = mountPoint.resolve("filler");
    this.hook = new Thread(this::unmountQuietly, "small-disk-unmount");
  }

  /**
   * Unmounts every mount under {@code dir}: what a run killed before its close left behind (the
   * folder could not be cleared for the next run otherwise).
   */
  static void unmountStale(Path dir) {
    Path under = dir.toAbsolutePath().normalize();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/mounts"), StandardCharsets.UTF_8)) {
        String[] fields = line.split(" ");
        if (fields.length > 1 && Path.of(fields[1]).startsWith(under)) {
          run(List.of("umount", "--lazy", fields[1]), "cannot unmount the stale " + fields[1]);
        }
      }
    } catch (IOException e) {
      // No /proc/mounts: nothing was mounted by this class either.
    }
  }

  /** Mounts a tmpfs of {@code megabytes} at {@code mountPoint} (created when missing). */
  static SmallDisk mount(Path mountPoint, int megabytes) {
    try {
      Files.createDirectories(mountPoint);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + mountPoint, e);
    }
    run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0755", "tmpfs", mountPoint.toString()),
        "row B16 mounts a tmpfs for its database's disk, which needs root");
    SmallDisk disk = new SmallDisk(mountPoint);
    Runtime.getRuntime().addShutdownHook(disk.hook);
    return disk;
  }

  Path root() {
    return mountPoint;
  }

  /**
   * Takes every free byte, writing zeros until the filesystem refuses (a size measured first would
   * be stale by the time it is allocated: the database keeps writing); returns how many.
   */
  long fill() {
    long written = 0;
    try (OutputStream out = Files.newOutputStream(filler)) {
      for (int chunk : new int[] {1 << 20, 1 << 12, 1}) {
        byte[] zeros = new byte[chunk];
        try {
          while (true) {
            out.write(zeros);
            written += chunk;
          }
        } catch (IOException full) {
          // No space left for a chunk this size: go on with smaller ones.
        }
      }
    } catch (IOException e) {
      // Closing a file on a full disk may fail too; what was written stays.
    }
    return written;
  }

  /** Gives the filled space back. */
  void free() {
    try {
      Files.deleteIfExists(filler);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + filler, e);
    }
  }

  /** Unmounts (what is on it is gone). */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
    run(List.of("umount", "--lazy", mountPoint.toString()), "cannot unmount " + mountPoint);
  }

  private void unmountQuietly() {
    try {
      run(List.of("umount", "--lazy", mountPoint.toString()), "cannot unmount " + mountPoint);
    } catch (RuntimeException e) {
      System.err.println(e.getMessage());
    }
  }

  private static void run(List<String> command, String failure) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(failure + ": " + String.join(" ", command) + " -> " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(failure, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(failure, e);
    }
  }
}
