package io.twinbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Latencies, percentiles and CDF points, one quantile rule for every scenario that reports latency. */
public final class LatencyStats {
  private LatencyStats() {}

  /** Sorted latencies (ns) of the measured ids that reached {@code to}. */
  public static long[] latencies(Set<UUID> ids, Map<UUID, Long> from, Map<UUID, Long> to) {
    long[] out = new long[ids.size()];
    int n = 0;
    for (UUID id : ids) {
      Long a = from.get(id);
      Long b = to.get(id);
      if (a != null && b != null) {
        out[n++] = Math.max(0, b - a);
      }
    }
    long[] result = Arrays.copyOf(out, n);
    Arrays.sort(result);
    return result;
  }

  /** p50, p90, p99, p99.9 and max of {@code sorted} (ns) as metrics {@code <prefix>_p50_ms}, …. */
  public static void percentiles(Result r, String prefix, long[] sorted) {
    r.metric(prefix + "_p50_ms", q(sorted, 0.50));
    r.metric(prefix + "_p90_ms", q(sorted, 0.90));
    r.metric(prefix + "_p99_ms", q(sorted, 0.99));
    r.metric(prefix + "_p999_ms", q(sorted, 0.999));
    r.metric(prefix + "_max_ms", sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6);
  }

  /** The {@code quantile} of {@code sorted} (ns) in ms, rounded to 0.01 ms; NaN when empty. */
  public static double q(long[] sorted, double quantile) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
    return Math.round(sorted[Math.max(0, i)] / 1e4) / 100.0;
  }

  /** 201 points (quantiles 0, 0.5%, ... 100%) in ms. */
  public static List<Double> cdf(long[] sorted) {
    List<Double> points = new ArrayList<>();
    if (sorted.length == 0) {
      return points;
    }
    for (int k = 0; k <= 200; k++) {
      double qq = k / 200.0;
      int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(qq * sorted.length) - 1));
      points.add(Math.round(sorted[i] / 1e4) / 100.0);
    }
    return points;
  }
}
