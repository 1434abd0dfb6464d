package io.twinbox.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Whether the soak's resources stayed flat, judged from the per-minute samples, not eyeballed: per
 * process kind and figure, the median of an early window (minutes 5–20 of an hour: after warm-up,
 * JIT and the pools' growth) against the median of the last 15 minutes. Only growth is judged (a
 * leak grows; a figure that shrinks is not one). Tolerances, each far below what a leak of the
 * pipeline would show over 40 minutes at 1,000 events/s (100 bytes kept per event is 6 MB a minute):
 * live heap after GC within ×1.20 or 4 MiB (client buffers and metadata move a few MB), threads
 * within +2 or ×1.10 (pools that grow and shrink by one or two), file descriptors within +4 or ×1.10
 * (sockets of a reconnect, jars), database sessions within +1 (a pool's idle session), and the
 * end-to-end p99 within ×1.5 or 50 ms (the minute's fault moves it). Inclusive windows; for runs
 * shorter than 35 minutes they scale: skip the first twelfth, then a quarter each.
 */
final class SoakJudge {
  /** One process's figures at one sample. */
  record ProcessSample(int minute, double elapsedSeconds, String process, long pid, long heapBytes, int threads,
      int fds, int dbSessions) {
    /** relay, consumer, producer, broker: the process name without its number. */
    String kind() {
      int dash = process.lastIndexOf('-');
      return dash > 0 && process.substring(dash + 1).chars().allMatch(Character::isDigit)
          ? process.substring(0, dash) : process;
    }
  }

  /** The pipeline's figures of one minute: latency of the effects applied in it, rates, load. */
  record MinuteSample(int minute, double elapsedSeconds, long applied, double p50Millis, double p99Millis,
      double maxMillis, long committedTotal, long pending, double load1) {}

  /** One judged figure. */
  record Figure(String kind, String figure, double early, double late, double tolerated, boolean flat) {
    double ratio() {
      return early == 0 ? (late == 0 ? 1 : Double.POSITIVE_INFINITY) : late / early;
    }

    String line() {
      return String.format(Locale.ROOT, "| %s | %s | %s | %s | ×%.2f | ≤ %s | %s |", kind, figure, fmt(early),
          fmt(late), ratio(), fmt(tolerated), flat ? "flat" : "**GREW**");
    }

    private String fmt(double v) {
      return v == Math.rint(v) && Math.abs(v) < 1e9 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
  }

  record Window(int from, int to) {
    boolean contains(int minute) {
      return minute >= from && minute <= to;
    }

    @Override
    public String toString() {
      return "minutes " + from + "–" + to;
    }
  }

  private SoakJudge() {}

  static Window early(int minutes) {
    if (minutes >= 35) {
      return new Window(5, 20);
    }
    int skip = Math.max(1, Math.round(minutes / 12f));
    int len = Math.max(1, minutes / 4);
    return new Window(skip, skip + len - 1);
  }

  static Window late(int minutes) {
    if (minutes >= 35) {
      return new Window(minutes - 14, minutes);
    }
    int len = Math.max(1, minutes / 4);
    return new Window(minutes - len + 1, minutes);
  }

  /** Every figure of every process kind, then the p99. */
  static List<Figure> judge(List<ProcessSample> samples, List<MinuteSample> minutes, int duration) {
    Window early = early(duration);
    Window late = late(duration);
    List<Figure> out = new ArrayList<>();
    for (String kind : samples.stream().map(ProcessSample::kind).distinct().sorted().toList()) {
      List<ProcessSample> of = samples.stream().filter(s -> s.kind().equals(kind)).toList();
      out.add(figure(kind, "live heap after GC (MiB)", of, early, late, s -> s.heapBytes() < 0 ? Double.NaN
          : s.heapBytes() / 1048576.0, e -> Math.max(e * 1.20, e + 4)));
      out.add(figure(kind, "threads", of, early, late, s -> s.threads() < 0 ? Double.NaN : s.threads(),
          e -> Math.max(e * 1.10, e + 2)));
      out.add(figure(kind, "open fds", of, early, late, s -> s.fds() < 0 ? Double.NaN : s.fds(),
          e -> Math.max(e * 1.10, e + 4)));
      if (!kind.equals("broker")) {
        out.add(figure(kind, "db sessions", of, early, late, s -> s.dbSessions(), e -> e + 1));
      }
    }
    double e99 = median(minutes.stream().filter(m -> early.contains(m.minute()) && m.applied() > 0)
        .mapToDouble(MinuteSample::p99Millis).toArray());
    double l99 = median(minutes.stream().filter(m -> late.contains(m.minute()) && m.applied() > 0)
        .mapToDouble(MinuteSample::p99Millis).toArray());
    double tol = Math.max(e99 * 1.5, e99 + 50);
    out.add(new Figure("pipeline", "p99 commit→apply (ms)", e99, l99, tol, l99 <= tol));
    return out;
  }

  private static Figure figure(String kind, String name, List<ProcessSample> of, Window early, Window late,
      ToDoubleFunction<ProcessSample> value, java.util.function.DoubleUnaryOperator tolerance) {
    double e = median(of.stream().filter(s -> early.contains(s.minute())).mapToDouble(value).filter(v -> !Double.isNaN(v))
        .toArray());
    double l = median(of.stream().filter(s -> late.contains(s.minute())).mapToDouble(value).filter(v -> !Double.isNaN(v))
        .toArray());
    double tol = tolerance.applyAsDouble(e);
    return new Figure(kind, name, e, l, tol, !Double.isNaN(e) && !Double.isNaN(l) && l <= tol);
  }

  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** The {@code q} quantile (0..1, nearest rank) of {@code sorted}. */
  static double quantile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }
}
