package io.twinbox.bench.peers;

import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import java.util.ArrayList;
import java.util.List;

/** The peers command's summary: each figure and its ratio Twinbox / contender, from one run. */
final class PeerTables {
  private PeerTables() {}

  static void print(List<Result> all) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("scenario", "contender", "setting", "figure", "twinbox / contender", "load1"));
    for (Result r : all) {
      String setting;
      String figure;
      double mine;
      double twin;
      switch (r.scenario()) {
        case "write" -> {
          setting = r.param("clients") + " clients";
          mine = r.number("tx_per_s");
          twin = find(all, "write", "twinbox", "clients", r.param("clients")).number("tx_per_s");
          figure = Report.num(mine) + " tx/s";
        }
        case "relay" -> {
          setting = r.param("workers") + " threads";
          mine = r.number("events_per_s");
          twin = find(all, "relay", "twinbox", null, null).number("events_per_s");
          figure = Report.num(mine) + " events/s";
        }
        case "latency" -> {
          setting = r.param("rate") + " events/s target";
          // Lower is better: the ratio is contender / twinbox, "times lower".
          mine = find(all, "latency", "twinbox", null, null).number("consume_p99_ms");
          twin = r.number("consume_p99_ms");
          figure = "p50 " + Report.ms(r.number("consume_p50_ms")) + " / p99 " + Report.ms(r.number("consume_p99_ms"))
              + " ms at " + Report.num(r.number("achieved_rate")) + "/s";
        }
        default -> {
          continue;
        }
      }
      String ratio = r.scenario().equals("latency") ? Report.ratio(twin, mine) + " (p99, peer / twinbox)"
          : Report.ratio(twin, mine);
      rows.add(List.of(r.scenario(), r.variant(), setting, figure, ratio, Report.load(r.loadBeforeOrAfter())));
    }
    Report.table("Twinbox and its peers, one run (ratios within the run)", rows);
  }

  private static Result find(List<Result> all, String scenario, String variant, String param, Object value) {
    return all.stream().filter(r -> r.scenario().equals(scenario) && r.variant().equals(variant)
        && (param == null || r.param(param).equals(value))).findFirst()
        .orElse(new Result(scenario, variant, -1));
  }
}
