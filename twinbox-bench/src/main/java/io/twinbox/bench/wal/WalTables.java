package io.twinbox.bench.wal;

import io.twinbox.bench.Plots;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code wal} command's tables: medians over the rounds with their spread (min–max), the
 * ratios the issue asks for (WAL relay / each contender, from the medians and per round), the
 * database cost per 1,000 events, and the commit → ack latency per contender and rate.
 */
final class WalTables {
  private WalTables() {}

  static void print(List<Result> all) {
    List<Result> relay = all.stream().filter(r -> r.scenario().equals("relay")).toList();
    if (!relay.isEmpty()) {
      Report.table("Drain of the backlog (events/s; median of the rounds, min–max)", drain(relay));
      Report.table("Twinbox WAL relay / contender (ratio of the medians; per-round ratios, min–max)", ratios(relay));
      Report.table("Database cost per 1,000 events (private cluster: CPU ms of its processes, WAL bytes by LSN; "
          + "median of the rounds, min–max)", cost(relay));
    }
    List<Result> write = all.stream().filter(r -> r.scenario().equals("write")).toList();
    if (!write.isEmpty()) {
      Report.table("Write: committed tx/s (\"never a row\" candidates; ratio to business-only, same client count)",
          write(write));
    }
    List<Result> latency = all.stream().filter(r -> r.scenario().equals("latency")).toList();
    if (!latency.isEmpty()) {
      Report.table("Commit → broker ack (ms; median of the rounds, min–max)", latency(latency));
    }
  }

  static Map<String, List<Result>> byVariant(List<Result> rs) {
    Map<String, List<Result>> m = new LinkedHashMap<>();
    for (String d : WalCommand.DRAINERS) {
      List<Result> of = rs.stream().filter(r -> r.variant().equals(d)).toList();
      if (!of.isEmpty()) {
        m.put(d, of);
      }
    }
    rs.stream().map(Result::variant).distinct().filter(v -> !m.containsKey(v))
        .forEach(v -> m.put(v, rs.stream().filter(r -> r.variant().equals(v)).toList()));
    return m;
  }

  static List<List<String>> drain(List<Result> relay) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("contender", "rounds", "events/s", "min–max", "per round", "start-up / first publish s",
        "load1 per round"));
    byVariant(relay).forEach((v, rs) -> rows.add(List.of(v, String.valueOf(rs.size()),
        Report.num(median(rs, "events_per_s")), spread(rs, "events_per_s", "%,.0f"),
        String.join(" / ", rs.stream().map(r -> Report.num(r.number("events_per_s"))).toList()),
        fmt("%.2f", median(rs.stream().map(r -> !Double.isNaN(r.number("startup_s")) ? r.number("startup_s")
            : r.number("first_publish_after_ms") / 1000).toList())),
        String.join(" / ", rs.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList()))));
    return rows;
  }

  static List<List<String>> ratios(List<Result> relay) {
    Map<String, List<Result>> by = byVariant(relay);
    List<Result> wal = by.get("twinbox-wal");
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("WAL relay / …", "ratio of medians", "per round (same round)", "min–max"));
    if (wal == null) {
      return rows;
    }
    double walMedian = median(wal, "events_per_s");
    by.forEach((v, rs) -> {
      if (v.equals("twinbox-wal")) {
        return;
      }
      List<Double> perRound = new ArrayList<>();
      for (Result w : wal) {
        rs.stream().filter(r -> Objects.equals(r.param("round"), w.param("round"))).findFirst()
            .ifPresent(r -> perRound.add(w.number("events_per_s") / r.number("events_per_s")));
      }
      rows.add(List.of(v, fmt("%.2f", walMedian / median(rs, "events_per_s")),
          String.join(" / ", perRound.stream().map(d -> fmt("%.2f", d)).toList()),
          perRound.isEmpty() ? "–" : fmt("%.2f", min(perRound)) + "–" + fmt("%.2f", max(perRound))));
    });
    return rows;
  }

  static List<List<String>> cost(List<Result> relay) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("contender", "drain: pg CPU ms", "min–max", "drain: WAL bytes", "min–max",
        "write: pg CPU ms", "write: WAL bytes", "drain: pg cores"));
    byVariant(relay).forEach((v, rs) -> rows.add(List.of(v,
        fmt("%.1f", median(rs, "drain_pg_cpu_ms_per_1000")), spread(rs, "drain_pg_cpu_ms_per_1000", "%.1f"),
        Report.num(median(rs, "drain_wal_bytes_per_1000")), spread(rs, "drain_wal_bytes_per_1000", "%,.0f"),
        fmt("%.1f", median(rs, "write_pg_cpu_ms_per_1000")), Report.num(median(rs, "write_wal_bytes_per_1000")),
        fmt("%.2f", median(rs, "drain_pg_cores")))));
    return rows;
  }

  static List<List<String>> latency(List<Result> latency) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("contender", "target/s", "rounds", "achieved/s", "ack p50", "ack p99", "p99 min–max", "ack max",
        "max min–max", "not acked", "load1 per round"));
    List<Integer> rates = latency.stream().map(r -> ((Number) r.param("rate")).intValue()).distinct().toList();
    for (int rate : rates) {
      List<Result> at = latency.stream().filter(r -> ((Number) r.param("rate")).intValue() == rate).toList();
      byVariant(at).forEach((v, rs) -> rows.add(List.of(v, String.valueOf(rate), String.valueOf(rs.size()),
          Report.num(median(rs, "achieved_rate")), fmt("%.1f", median(rs, "ack_p50_ms")),
          fmt("%.1f", median(rs, "ack_p99_ms")), spread(rs, "ack_p99_ms", "%.1f"),
          fmt("%.1f", median(rs, "ack_max_ms")), spread(rs, "ack_max_ms", "%.1f"),
          Report.num(rs.stream().mapToDouble(r -> r.number("not_acked")).sum()),
          String.join(" / ", rs.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList()))));
    }
    return rows;
  }

  static List<List<String>> write(List<Result> write) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("path", "clients", "tx/s", "per slice", "vs business-only", "vs twinbox"));
    List<Integer> clients = write.stream().map(r -> ((Number) r.param("clients")).intValue()).distinct().sorted()
        .toList();
    for (int c : clients) {
      List<Result> at = write.stream().filter(r -> ((Number) r.param("clients")).intValue() == c).toList();
      double business = at.stream().filter(r -> r.variant().equals("business-only")).mapToDouble(r -> r.number("tx_per_s"))
          .findFirst().orElse(Double.NaN);
      double twinbox = at.stream().filter(r -> r.variant().equals("twinbox")).mapToDouble(r -> r.number("tx_per_s"))
          .findFirst().orElse(Double.NaN);
      for (Result r : at) {
        rows.add(List.of(r.variant(), String.valueOf(c), Report.num(r.number("tx_per_s")),
            String.valueOf(r.metrics().get("slice_tx_per_s")), Report.ratio(r.number("tx_per_s"), business),
            Report.ratio(r.number("tx_per_s"), twinbox)));
      }
    }
    return rows;
  }

  /** Per contender at {@code rate}, the round whose ack p99 is the median one (for the CDF plot). */
  static List<Result> medianLatencyRuns(List<Result> all, int rate) {
    List<Result> at = all.stream().filter(r -> r.scenario().equals("latency")
        && ((Number) r.param("rate")).intValue() == rate).toList();
    List<Result> out = new ArrayList<>();
    byVariant(at).forEach((v, rs) -> {
      List<Result> sorted = new ArrayList<>(rs);
      sorted.sort((a, b) -> Double.compare(a.number("ack_p99_ms"), b.number("ack_p99_ms")));
      out.add(sorted.get((sorted.size() - 1) / 2));
    });
    return out;
  }

  static Path drainBars(List<Result> all, Path dir) throws IOException {
    List<Result> relay = all.stream().filter(r -> r.scenario().equals("relay")).toList();
    if (relay.isEmpty()) {
      return null;
    }
    Map<String, List<Double>> values = new LinkedHashMap<>();
    byVariant(relay).forEach((v, rs) -> values.put(v, List.of(median(rs, "events_per_s"))));
    return Plots.bars(values, dir, "wal-drain.png", "Drain of " + relay.get(0).param("events")
        + " backlogged events to Kafka (events/s, median of " + byVariant(relay).values().iterator().next().size()
        + " rounds), private PostgreSQL cluster", "events/s");
  }

  static double median(List<Result> rs, String metric) {
    return median(rs.stream().map(r -> r.number(metric)).toList());
  }

  static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String spread(List<Result> rs, String metric, String format) {
    double[] v = rs.stream().mapToDouble(r -> r.number(metric)).filter(d -> !Double.isNaN(d)).toArray();
    if (v.length == 0) {
      return "–";
    }
    return fmt(format, Arrays.stream(v).min().orElseThrow()) + "–" + fmt(format, Arrays.stream(v).max().orElseThrow());
  }

  private static double min(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  private static String fmt(String format, double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, format, v);
  }
}
