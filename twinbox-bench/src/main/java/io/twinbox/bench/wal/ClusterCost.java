package io.twinbox.bench.wal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What one private PostgreSQL cluster spent over a window: CPU seconds of its processes, and the WAL
 * it wrote. Unlike {@link io.twinbox.bench.CpuMeter}, which counts every process named {@code
 * postgres} (the shared server on 5432, busy with other builds, included), this counts only the
 * cluster's postmaster and its children, read from {@code /proc}: the postmaster's own time plus
 * the time of the children it has reaped ({@code cutime}/{@code cstime}), plus the time of its live
 * children. A backend that exits inside the window is counted once, in the reaped time.
 *
 * <p>WAL: the difference of {@code pg_current_wal_lsn()} and of {@code pg_stat_wal.wal_bytes}
 * (PostgreSQL 14+; the two agree but for the WAL of the reading statements themselves).
 */
final class ClusterCost {
  private static final double HZ = 100.0; // USER_HZ on Linux

  private final long postmaster;
  private final DataSource admin;

  /** A sample: the cluster's CPU jiffies, its WAL position and pg_stat_wal bytes, and the time. */
  record Sample(long jiffies, long lsn, long walBytes, long nanos) {}

  ClusterCost(Path dataDir, DataSource admin) {
    this.postmaster = postmasterPid(dataDir);
    this.admin = admin;
  }

  long postmasterPid() {
    return postmaster;
  }

  Sample sample() throws SQLException {
    long lsn;
    long walBytes;
    try (Connection c = admin.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, (SELECT wal_bytes FROM pg_stat_wal)")) {
      rs.next();
      lsn = rs.getLong(1);
      walBytes = rs.getLong(2);
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    }
    return new Sample(jiffies(), lsn, walBytes, System.nanoTime());
  }

  /**
   * The cost between two samples, per 1,000 events when {@code events > 0}: {@code pg_cpu_s} (CPU
   * seconds), {@code pg_cores} (average busy cores), {@code wal_bytes} (LSN difference), {@code
   * stat_wal_bytes}, and {@code pg_cpu_ms_per_1000}, {@code wal_bytes_per_1000}.
   */
  static Map<String, Object> between(Sample a, Sample b, long events, String prefix) {
    double cpuSeconds = (b.jiffies() - a.jiffies()) / HZ;
    double seconds = (b.nanos() - a.nanos()) / 1e9;
    long wal = b.lsn() - a.lsn();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(prefix + "pg_cpu_s", round(cpuSeconds, 100));
    m.put(prefix + "pg_cores", round(seconds > 0 ? cpuSeconds / seconds : Double.NaN, 100));
    m.put(prefix + "wal_bytes", wal);
    m.put(prefix + "stat_wal_bytes", b.walBytes() - a.walBytes());
    if (events > 0) {
      m.put(prefix + "pg_cpu_ms_per_1000", round(cpuSeconds * 1000 * 1000 / events, 10));
      m.put(prefix + "wal_bytes_per_1000", Math.round(wal * 1000.0 / events));
    }
    return m;
  }

  private static double round(double v, double scale) {
    return Double.isNaN(v) ? v : Math.round(v * scale) / scale;
  }

  /** utime + stime + cutime + cstime of the postmaster, plus utime + stime of its live children. */
  private long jiffies() {
    long[] pm = stat(postmaster);
    if (pm == null) {
      throw new IllegalStateException("the cluster's postmaster (pid " + postmaster + ") is gone");
    }
    long sum = pm[1] + pm[2] + pm[3] + pm[4];
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : ds) {
        long pid = Long.parseLong(p.getFileName().toString());
        if (pid == postmaster) {
          continue;
        }
        long[] s = stat(pid);
        if (s != null && s[0] == postmaster) {
          sum += s[1] + s[2];
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list /proc", e);
    }
    return sum;
  }

  /** {ppid, utime, stime, cutime, cstime} of {@code pid}, or null when it is gone. */
  private static long[] stat(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    } catch (IOException | RuntimeException e) {
      return null;
    }
    // After "pid (comm) ": state is field 3; ppid 4, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]),
        Long.parseLong(f[14])};
  }

  private static long postmasterPid(Path dataDir) {
    try {
      return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the postmaster's pid from " + dataDir.resolve("postmaster.pid"), e);
    }
  }
}
