package io.twinbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Collects the results of one run: appends them to {@code results.jsonl} and prints tables. */
public final class Report {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final String runId;
  private Map<String, Object> machine = Map.of();
  private final List<Result> results = new ArrayList<>();

  public Report(Path dir) {
    this.dir = dir;
    this.runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path dir() {
    return dir;
  }

  public String runId() {
    return runId;
  }

  public void machine(Map<String, Object> machine) {
    this.machine = machine;
  }

  public Map<String, Object> machine() {
    return machine;
  }

  public List<Result> results() {
    return results;
  }

  /** Records a result: kept in memory and appended to the JSONL file at once. */
  public void add(Result r) {
    results.add(r);
    try {
      String line = JSON.writeValueAsString(r.toJson(runId, machine)) + "\n";
      Files.writeString(dir.resolve("results.jsonl"), line, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + dir.resolve("results.jsonl"), e);
    }
  }

  /** Prints a fixed-width table; the first row is the header. */
  public static void table(String title, List<List<String>> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int cols = rows.get(0).size();
    int[] w = new int[cols];
    for (List<String> row : rows) {
      for (int i = 0; i < cols; i++) {
        w[i] = Math.max(w[i], row.get(i).length());
      }
    }
    StringBuilder sb = new StringBuilder("\n").append(title).append('\n');
    for (int r = 0; r < rows.size(); r++) {
      List<String> row = rows.get(r);
      sb.append('|');
      for (int i = 0; i < cols; i++) {
        String cell = row.get(i);
        boolean left = i == 0 || r == 0;
        sb.append(' ').append(left ? pad(cell, w[i], true) : pad(cell, w[i], false)).append(" |");
      }
      sb.append('\n');
      if (r == 0) {
        sb.append('|');
        for (int i = 0; i < cols; i++) {
          sb.append(' ').append("-".repeat(w[i])).append(" |");
        }
        sb.append('\n');
      }
    }
    System.out.print(sb);
    System.out.flush();
  }

  private static String pad(String s, int w, boolean left) {
    String fill = " ".repeat(Math.max(0, w - s.length()));
    return left ? s + fill : fill + s;
  }

  public static String num(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  public static String ms(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v);
  }

  public static String ratio(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f", a / b);
  }

  public static String load(double l) {
    return l < 0 ? "?" : String.format(Locale.ROOT, "%.2f", l);
  }
}
