package io.twinbox.bench.peers.debezium;

import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The debezium command's summary: each figure and its ratio Twinbox / Debezium, from one run. */
final class DebeziumTables {
  private DebeziumTables() {}

  static void print(List<Result> all) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("scenario", "contender", "setting", "figure", "twinbox / contender", "load1"));
    for (Result r : all) {
      switch (r.scenario()) {
        case "write" -> {
          double twin = find(all, "write", "twinbox", "clients", r.param("clients")).number("tx_per_s");
          rows.add(List.of("write", r.variant(), r.param("clients") + " clients", Report.num(r.number("tx_per_s")) + " tx/s",
              Report.ratio(twin, r.number("tx_per_s")), Report.load(r.loadBeforeOrAfter())));
        }
        case "relay" -> {
          // Within the same round: the machine's load moves between rounds more than the contenders differ.
          double twin = mean(all, "relay", "twinbox", "round", r.param("round"), "events_per_s");
          String extra = r.metrics().containsKey("streaming_events_per_s")
              ? " (streaming " + Report.num(r.number("streaming_events_per_s")) + "/s, start-up "
                  + Report.ms(r.number("startup_s")) + " s)" : "";
          rows.add(List.of("relay", r.variant() + (r.param("round") == null ? "" : " r" + r.param("round")),
              r.param("workers") + " threads", Report.num(r.number("events_per_s")) + " events/s" + extra,
              Report.ratio(twin, r.number("events_per_s")), Report.load(r.loadBeforeOrAfter())));
        }
        case "latency" -> {
          // Lower is better: the ratio is contender / twinbox (default relay), "times lower".
          double twin = find(all, "latency", "twinbox", "rate", r.param("rate")).number("consume_p99_ms");
          rows.add(List.of("latency", r.variant(), r.param("rate") + " events/s target",
              "p50 " + Report.ms(r.number("consume_p50_ms")) + " / p99 " + Report.ms(r.number("consume_p99_ms"))
                  + " / max " + Report.ms(r.number("consume_max_ms")) + " ms at "
                  + Report.num(r.number("achieved_rate")) + "/s, lost " + Report.num(r.number("not_consumed")),
              Report.ratio(r.number("consume_p99_ms"), twin) + " (p99, contender / twinbox)",
              Report.load(r.loadBeforeOrAfter())));
        }
        default -> {
          // Not this command's.
        }
      }
    }
    Report.table("Twinbox and Debezium's outbox event router, one run (ratios within the run)", rows);
  }

  private static Result find(List<Result> all, String scenario, String variant, String param, Object value) {
    return all.stream().filter(r -> r.scenario().equals(scenario) && r.variant().equals(variant)
        && (param == null || Objects.equals(r.param(param), value))).findFirst()
        .orElse(new Result(scenario, variant, -1));
  }

  private static double mean(List<Result> all, String scenario, String variant, String param, Object value,
      String metric) {
    return all.stream().filter(r -> r.scenario().equals(scenario) && r.variant().equals(variant)
        && (param == null || Objects.equals(r.param(param), value))).mapToDouble(r -> r.number(metric))
        .average().orElse(Double.NaN);
  }
}
