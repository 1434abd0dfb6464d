package io.twinbox.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The soak's per-process figures, read from outside the process so that sampling adds nothing to
 * it but the attach listener thread (created at the first {@code jcmd}, kept afterwards): live heap
 * after a full GC ({@code jcmd <pid> GC.class_histogram}, whose default is a full stop-the-world
 * collection followed by a count of the live objects: its {@code Total} line is the live bytes), live
 * threads ({@code Threads:} of {@code /proc/<pid>/status}), open file descriptors (entries of
 * {@code /proc/<pid>/fd}), and database sessions per {@code application_name} from
 * {@code pg_stat_activity} (the children's pools name their sessions, see {@code Pools}). Linux only.
 */
final class ResourceSampler {
  private ResourceSampler() {}

  /** Live heap bytes after a full GC, or -1 when {@code jcmd} failed (the process is gone). */
  static long liveHeapAfterGc(long pid) {
    try {
      Process p = new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram")
          .redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue() == 0 ? histogramTotal(new String(out, StandardCharsets.UTF_8)) : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The bytes of a class histogram's {@code Total <instances> <bytes>} line; -1 when there is none. */
  static long histogramTotal(String histogram) {
    for (String line : histogram.split("\n")) {
      String t = line.trim();
      if (t.startsWith("Total")) {
        String[] parts = t.split("\\s+");
        return Long.parseLong(parts[parts.length - 1]);
      }
    }
    return -1;
  }

  /** Live threads of {@code pid} ({@code /proc/<pid>/status}); -1 when it is gone. */
  static int threads(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("Threads:")) {
          return Integer.parseInt(line.substring("Threads:".length()).trim());
        }
      }
      return -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Open file descriptors of {@code pid}; -1 when it is gone. */
  static int fileDescriptors(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return (int) fds.count();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The 1-minute load average of the machine. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Sessions per {@code application_name} in the databases {@code databases} of the server {@code ds} reaches. */
  static Map<String, Integer> sessions(DataSource ds, List<String> databases) {
    Map<String, Integer> out = new HashMap<>();
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = ANY (?) GROUP BY 1")) {
      ps.setArray(1, c.createArrayOf("text", databases.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getInt(2));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read pg_stat_activity", e);
    }
    return out;
  }
}
