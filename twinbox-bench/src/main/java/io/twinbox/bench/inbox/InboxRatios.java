package io.twinbox.bench.inbox;

import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Issue 16's figure: per broker, each library variant's consumed/s over the hand-written consumer
 * loop's ({@link InboxBench.Kind#RAW_BROKER}) of the same round, median and range of those per-round
 * ratios. Results without a {@code broker} parameter (before issue 16) are Kafka's.
 */
public final class InboxRatios {
  private InboxRatios() {}

  static String broker(Result r) {
    Object b = r.param("broker");
    return b == null ? "kafka" : b.toString();
  }

  static boolean baseline(Result r) {
    Object k = r.param("kind");
    return k != null ? k.equals(InboxBench.Kind.RAW_BROKER.name()) : r.variant().startsWith("raw-kafka-");
  }

  static boolean library(Result r) {
    return r.variant().startsWith("twinbox-");
  }

  /** The per-round ratios of the library variants of {@code batch} messages per transaction, no duplicates. */
  public static List<List<String>> table(List<Result> all, int batch) {
    List<Result> rs = all.stream().filter(r -> r.scenario().equals("inbox"))
        .filter(r -> Objects.equals(String.valueOf(r.param("batch")), String.valueOf(batch)))
        .filter(r -> ((Number) r.param("duplicate_share")).doubleValue() == 0).toList();
    Map<String, Map<Object, Double>> baseByBroker = new LinkedHashMap<>();
    for (Result r : rs) {
      if (baseline(r)) {
        baseByBroker.computeIfAbsent(broker(r), k -> new LinkedHashMap<>()).put(r.param("round"), r.number("consumed_per_s"));
      }
    }
    Map<String, List<Result>> groups = new LinkedHashMap<>();
    for (Result r : rs) {
      if (library(r) || baseline(r)) {
        groups.computeIfAbsent(broker(r) + "\u0000" + r.variant(), k -> new ArrayList<>()).add(r);
      }
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("broker", "variant", "consumed/s median (min–max)", "per round", "vs hand-written loop, "
        + "median of per-round ratios (min–max)", "load1 per round"));
    for (List<Result> g : groups.values()) {
      Result f = g.get(0);
      Map<Object, Double> base = baseByBroker.getOrDefault(broker(f), Map.of());
      List<Double> rates = g.stream().map(r -> r.number("consumed_per_s")).toList();
      List<Double> ratios = g.stream().filter(r -> base.containsKey(r.param("round")))
          .map(r -> r.number("consumed_per_s") / base.get(r.param("round"))).toList();
      rows.add(List.of(broker(f), f.variant(), Report.num(median(rates)) + " (" + Report.num(min(rates)) + "–"
              + Report.num(max(rates)) + ")",
          String.join(" / ", rates.stream().map(Report::num).toList()),
          ratios.isEmpty() ? "–" : Report.ratio(median(ratios), 1) + " (" + Report.ratio(min(ratios), 1) + "–"
              + Report.ratio(max(ratios), 1) + ")",
          String.join(" / ", g.stream().map(r -> Report.load(r.loadBeforeOrAfter())).toList())));
    }
    return rows;
  }

  static double median(List<Double> xs) {
    List<Double> s = xs.stream().sorted().toList();
    int n = s.size();
    return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static double min(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double max(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }
}
