package io.twinbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.utils.AppInfoParser;

/** What the numbers were measured on: hardware, versions, and how busy the machine was. */
public final class Machine {
  private Machine() {}

  /** The 1-minute load average from {@code /proc/loadavg}, or -1 where there is none. */
  public static double load1() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return Double.parseDouble(f[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Static facts about the machine and the servers, for the results file and the report. */
  public static Map<String, Object> describe(DataSource db) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpus", Runtime.getRuntime().availableProcessors());
    m.put("cpu", cpuModel());
    m.put("memory_gib", Math.round(memTotalKib() / 1024.0 / 1024.0 * 10) / 10.0);
    m.put("jdk", System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ")");
    m.put("kafka", AppInfoParser.getVersion());
    m.put("git", git());
    if (db != null) {
      try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
        try (ResultSet rs = st.executeQuery("SHOW server_version")) {
          rs.next();
          m.put("postgresql", rs.getString(1));
        }
        try (ResultSet rs = st.executeQuery("SELECT name, setting, unit FROM pg_settings WHERE name IN "
            + "('shared_buffers','synchronous_commit','fsync','wal_level','max_wal_size') ORDER BY name")) {
          Map<String, String> settings = new LinkedHashMap<>();
          while (rs.next()) {
            settings.put(rs.getString(1), rs.getString(2) + (rs.getString(3) == null ? "" : " x " + rs.getString(3)));
          }
          m.put("pg_settings", settings);
        }
        if (!c.getAutoCommit()) {
          c.rollback();
        }
      } catch (SQLException e) {
        m.put("postgresql", "unknown (" + e.getMessage() + ")");
      }
    }
    return m;
  }

  /**
   * The commit of the working tree the harness runs in, and the files changed since (other than
   * the harness's own): the library measured is what was built from that tree.
   */
  static String git() {
    try {
      Process head = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
      String commit = new String(head.getInputStream().readAllBytes()).trim();
      Process status = new ProcessBuilder("git", "status", "--porcelain", "--untracked-files=no")
          .redirectErrorStream(true).start();
      long dirty = new String(status.getInputStream().readAllBytes()).lines()
          .filter(l -> !l.contains("twinbox-bench/") && !l.endsWith("BENCHMARKS.md") && !l.endsWith(" pom.xml"))
          .count();
      head.waitFor();
      status.waitFor();
      return commit + (dirty > 0 ? " + " + dirty + " uncommitted library file(s)" : "");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static long memTotalKib() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(l -> l.startsWith("MemTotal:")).findFirst()
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).orElse(0L);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
