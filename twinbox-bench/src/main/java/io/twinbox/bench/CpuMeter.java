package io.twinbox.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Who used the CPUs during a measurement, from {@code /proc}: this JVM, the Kafka broker JVM, all
 * PostgreSQL processes, and everything else ("other": builds and tests of other engineers). The
 * load average cannot tell these apart: it counts the benchmark's own threads too.
 *
 * <p>Values are average busy cores over the window (2.0 = both cores of a 2-core machine). Linux
 * only; elsewhere every value is -1.
 */
public final class CpuMeter {
  private static final double HZ = 100.0; // USER_HZ on Linux

  private final Set<Long> brokerPids;
  private long startNanos;
  private long startBusy;
  private Map<Long, long[]> startProcs;

  private CpuMeter(Set<Long> brokerPids) {
    this.brokerPids = brokerPids;
  }

  /** Starts measuring now. */
  public static CpuMeter start(Set<Long> brokerPids) {
    CpuMeter m = new CpuMeter(brokerPids);
    m.startNanos = System.nanoTime();
    m.startBusy = totalBusy();
    m.startProcs = processes(brokerPids);
    return m;
  }

  /** Busy cores per category since {@link #start}. */
  public Map<String, Double> stop() {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    long busy = totalBusy();
    Map<Long, long[]> now = processes(brokerPids);
    double[] byCat = new double[3];
    for (Map.Entry<Long, long[]> e : now.entrySet()) {
      long[] before = startProcs.get(e.getKey());
      long delta = e.getValue()[1] - (before == null ? 0 : before[1]);
      byCat[(int) e.getValue()[0]] += delta;
    }
    Map<String, Double> m = new LinkedHashMap<>();
    if (busy < 0 || seconds <= 0) {
      m.put("cpu_total", -1.0);
      return m;
    }
    double total = (busy - startBusy) / HZ / seconds;
    double self = byCat[0] / HZ / seconds;
    double broker = byCat[1] / HZ / seconds;
    double pg = byCat[2] / HZ / seconds;
    m.put("cpu_total", round(total));
    m.put("cpu_bench_jvm", round(self));
    m.put("cpu_kafka", round(broker));
    m.put("cpu_postgres", round(pg));
    m.put("cpu_other", round(Math.max(0, total - self - broker - pg)));
    return m;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  /** Busy jiffies of all CPUs (everything but idle and iowait). */
  private static long totalBusy() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long sum = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        if (i != 4 && i != 5) {
          sum += Long.parseLong(f[i]);
        }
      }
      return sum;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** pid → {category (0 self, 1 broker, 2 postgres, 3 ignored), utime+stime}. */
  private static Map<Long, long[]> processes(Set<Long> brokerPids) {
    Map<Long, long[]> m = new HashMap<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : ds) {
        long pid = Long.parseLong(p.getFileName().toString());
        int cat;
        String stat;
        try {
          stat = Files.readString(p.resolve("stat"));
        } catch (IOException | RuntimeException e) {
          continue; // exited meanwhile
        }
        String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (pid == self) {
          cat = 0;
        } else if (brokerPids.contains(pid)) {
          cat = 1;
        } else if (comm.startsWith("postgres")) {
          cat = 2;
        } else {
          continue;
        }
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // After the comm: state is field 3, utime field 14, stime field 15 (1-based in proc(5)).
        long jiffies = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        m.put(pid, new long[] {cat, jiffies});
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return m;
  }
}
