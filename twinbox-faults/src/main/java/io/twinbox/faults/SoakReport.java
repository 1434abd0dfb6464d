package io.twinbox.faults;

import io.twinbox.faults.SoakJudge.MinuteSample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The soak's section of FAULTS-REPORT.md: always the last one, between {@value #BEGIN} and
 * {@value #END}; a soak replaces it, and {@link ReportWriter} keeps it when the matrix rewrites
 * the report.
 */
final class SoakReport {
  static final String BEGIN = "<!-- soak:begin (written by FaultSoakRun; kept by the matrix) -->";
  static final String END = "<!-- soak:end -->";

  private SoakReport() {}

  static String section(SoakRun.Result r, String command, String resultsDir) {
    FaultVerdict v = r.verdict();
    List<MinuteSample> measured = r.pipeline().stream().filter(m -> m.applied() > 0).toList();
    double[] p99 = measured.stream().mapToDouble(MinuteSample::p99Millis).toArray();
    double[] p50 = measured.stream().mapToDouble(MinuteSample::p50Millis).toArray();
    double[] load = r.pipeline().stream().mapToDouble(MinuteSample::load1).toArray();
    double[] applied = measured.stream().mapToDouble(m -> m.applied() / 60.0).toArray();
    Map<FaultKind, Integer> kinds = SoakRun.counts(r.faults());
    String faultList = kinds.entrySet().stream().map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " "
        + e.getValue()).collect(Collectors.joining(", "));
    StringBuilder s = new StringBuilder();
    s.append(BEGIN).append("\n\n## Soak (issue 21)\n\n");
    s.append(String.format(Locale.ROOT, "%d minutes at %.0f committed events/s through two relays, the Kafka broker"
        + " and two inbox consumers (producer's store: a fresh database on the shared PostgreSQL), one fault a minute"
        + " (%d: %s), seed %d, finished %s. Reproduce:\n\n```\n%s\n```\n\n", r.minutes(), r.rate(), r.faults().size(),
        faultList, r.seed(), Instant.now().truncatedTo(ChronoUnit.SECONDS), command));
    MinuteSample last = r.pipeline().isEmpty() ? null : r.pipeline().get(r.pipeline().size() - 1);
    double seconds = last == null ? 1 : last.elapsedSeconds();
    long inSoak = last == null ? 0 : last.committedTotal();
    s.append(String.format(Locale.ROOT, "**Throughput.** Committed %d events in the soak's %.0f s: %.0f events/s"
        + " against %.0f asked; %d committed in all (%d attempted events planned%s).\n\n", inSoak, seconds,
        inSoak / seconds, r.rate(), v.committed(),
        r.planned(), r.producerFinished() ? ", all written" : "; the producer could not keep the rate and was stopped"
        + " at the end, its backlog of attempts unwritten"));
    s.append("**Invariants** after a full drain (" + r.drainMillis() / 1000 + " s after the producer's last write): `"
        + v.line() + "`; fenced completions " + r.fenced() + ". " + (v.ok() ? "All invariants zero." : "**BROKEN.**")
        + "\n\n");
    s.append(String.format(Locale.ROOT, "**Latency** commit→apply (outbox row's `created_at` → effect row's"
        + " `applied_at`, both `clock_timestamp()` on the one PostgreSQL server; per minute, over the effects"
        + " applied in that minute): p50 %s ms, p99 %s ms (min–median–max over %d minutes); applied %s events/s;"
        + " load average (1 min, 2 cores) %s; Pearson r of the minute's p99 and load average %.2f.\n\n",
        range(p50), range(p99), measured.size(), range(applied), range(load), pearson(measured)));
    s.append("**Flat?** Median of " + SoakJudge.early(r.minutes()) + " against the median of "
        + SoakJudge.late(r.minutes()) + " (samples of every process of the kind pooled; a process killed and"
        + " started again is a new series). Tolerated growth: live heap ×1.20 or 4 MiB, threads +2 or ×1.10,"
        + " fds +4 or ×1.10, database sessions +1, p99 ×1.5 or 50 ms — each far below what a leak would show over"
        + " 40 minutes at 1,000 events/s (100 bytes kept per event: 6 MB a minute). Heap: `jcmd <pid>"
        + " GC.class_histogram` (a full GC, then the live bytes); threads: `/proc/<pid>/status`; fds:"
        + " `/proc/<pid>/fd`; sessions: `pg_stat_activity` by `application_name`. Verdict: "
        + (r.flat() ? "**flat**" : "**not flat**") + ".\n\n");
    s.append("| process | figure | early | late | late/early | tolerated | judged |\n");
    s.append("|---|---|---:|---:|---:|---:|---|\n");
    r.figures().forEach(f -> s.append(f.line()).append('\n'));
    s.append("\n![soak: resources and latency per minute](" + resultsDir + "/soak.png)\n\n");
    s.append("Per-minute figures: [samples.csv](" + resultsDir + "/samples.csv) (per process), [minutes.csv]("
        + resultsDir + "/minutes.csv) (latency, committed, pending, load), [faults.csv](" + resultsDir
        + "/faults.csv).\n\n");
    s.append(END).append('\n');
    return s.toString();
  }

  private static String range(double[] values) {
    if (values.length == 0) {
      return "n/a";
    }
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return String.format(Locale.ROOT, "%s–%s–%s", fmt(v[0]), fmt(SoakJudge.median(v)), fmt(v[v.length - 1]));
  }

  private static String fmt(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  /** Pearson correlation of the minutes' p99 and load average; NaN below three minutes. */
  static double pearson(List<MinuteSample> minutes) {
    int n = minutes.size();
    if (n < 3) {
      return Double.NaN;
    }
    double mx = minutes.stream().mapToDouble(MinuteSample::p99Millis).average().orElse(0);
    double my = minutes.stream().mapToDouble(MinuteSample::load1).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (MinuteSample m : minutes) {
      double dx = m.p99Millis() - mx;
      double dy = m.load1() - my;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
  }

  /** Replaces the soak's section of {@code report} with {@code section}, or appends it at the end. */
  static void replaceSection(Path report, String section) throws IOException {
    String text = Files.exists(report) ? Files.readString(report, StandardCharsets.UTF_8) : "";
    Files.writeString(report, withoutSection(text) + "\n" + section, StandardCharsets.UTF_8);
  }

  /** The soak's section of {@code report} (from {@link #BEGIN} to the end), or "" (for {@link ReportWriter}). */
  static String kept(Path report) throws IOException {
    if (!Files.exists(report)) {
      return "";
    }
    String text = Files.readString(report, StandardCharsets.UTF_8);
    int at = text.indexOf(BEGIN);
    return at < 0 ? "" : "\n" + text.substring(at);
  }

  /** The report's lines before the soak's section: the matrix's (its tables are not the matrix's rows). */
  static List<String> matrixLines(List<String> report) {
    int at = report.indexOf(BEGIN);
    return at < 0 ? report : report.subList(0, at);
  }

  static String withoutSection(String text) {
    int at = text.indexOf(BEGIN);
    if (at < 0) {
      return text.endsWith("\n") ? text : text + "\n";
    }
    int end = text.indexOf(END, at);
    String after = end < 0 ? "" : text.substring(end + END.length()).replaceFirst("^\n", "");
    return (text.substring(0, at).stripTrailing() + "\n" + after).stripTrailing() + "\n";
  }
}
