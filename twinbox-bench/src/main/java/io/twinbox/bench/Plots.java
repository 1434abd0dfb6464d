package io.twinbox.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Renders the PNG plots of BENCHMARKS.md with XChart from a run's results. */
public final class Plots {
  private static final Color[] PALETTE = {
      new Color(0x4C72B0), new Color(0xDD8452), new Color(0x55A868), new Color(0xC44E52),
      new Color(0x8172B3), new Color(0x937860), new Color(0xDA8BC3)};

  private Plots() {}

  /** Write overhead: tx/s per path, grouped by client count. */
  public static Path writeBars(List<Result> results, Path dir) throws IOException {
    return writeBars(results, dir, "write", "Write overhead: committed transactions/s (PostgreSQL, same run)",
        "write-throughput.png");
  }

  /** Write overhead of {@code scenario} ({@code write}, {@code mariadb-write}) as grouped bars. */
  public static Path writeBars(List<Result> results, Path dir, String scenario, String title, String fileName)
      throws IOException {
    List<Result> write = results.stream().filter(r -> r.scenario().equals(scenario)).toList();
    if (write.isEmpty()) {
      return null;
    }
    List<Integer> clients = write.stream().map(r -> (Integer) r.param("clients")).distinct().sorted().toList();
    List<String> paths = write.stream().map(Result::variant).distinct().toList();
    CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
        .title(title)
        .xAxisTitle("client threads").yAxisTitle("transactions/s").build();
    style(chart);
    int i = 0;
    for (String p : paths) {
      List<String> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (int c : clients) {
        double v = write.stream().filter(r -> r.variant().equals(p) && r.param("clients").equals(c))
            .mapToDouble(r -> r.number("tx_per_s")).average().orElse(0);
        x.add(c + " clients");
        y.add(v);
      }
      chart.addSeries(p, x, y).setFillColor(PALETTE[i++ % PALETTE.length]);
    }
    Path file = dir.resolve(fileName);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
    return file;
  }

  /** Relay throughput: events/s per drainer and thread count. */
  public static Path relayBars(List<Result> results, Path dir) throws IOException {
    List<Result> relay = results.stream().filter(r -> r.scenario().equals("relay")).toList();
    if (relay.isEmpty()) {
      return null;
    }
    Map<String, List<Double>> groups = new LinkedHashMap<>();
    for (Result r : relay) {
      Object threads = r.param("workers") != null ? r.param("workers") + " workers" : r.param("claimers") + " claimers";
      groups.computeIfAbsent(r.variant() + " " + threads, k -> new ArrayList<>()).add(r.number("events_per_s"));
    }
    Map<String, Double> bars = new LinkedHashMap<>();
    groups.forEach((k, v) -> bars.put(k, v.stream().mapToDouble(Double::doubleValue).average().orElse(0)));
    CategoryChart chart = new CategoryChartBuilder().width(1100).height(550)
        .title("Relay: drain " + relay.get(0).param("events") + " pending events to Kafka (events/s, mean of rounds)")
        .xAxisTitle("").yAxisTitle("events/s").build();
    style(chart);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setXAxisLabelRotation(20);
    chart.addSeries("events/s", new ArrayList<>(bars.keySet()), new ArrayList<>(bars.values()))
        .setFillColor(PALETTE[0]);
    Path file = dir.resolve("relay-throughput.png");
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
    return file;
  }

  /** Latency CDF of commit→consume for each latency variant, log-scaled milliseconds. */
  public static Path latencyCdf(List<Result> results, Path dir) throws IOException {
    List<Result> lat = results.stream().filter(r -> r.scenario().equals("latency")).toList();
    if (lat.isEmpty()) {
      return null;
    }
    return cdf(lat, dir, "consume",
        "Commit → consume latency, paced writers (target " + lat.get(0).param("rate") + " events/s), CDF",
        50.0, "goal: p99 < 50 ms", "latency-cdf.png");
  }

  /**
   * One CDF line per result, of the metric {@code <what>_cdf_ms} (labelled with its {@code
   * <what>_p50_ms} and {@code <what>_p99_ms}), log-scaled milliseconds, with a dashed goal line at
   * {@code goalMs}. Returns {@code null} when no result has the metric.
   */
  @SuppressWarnings("unchecked")
  public static Path cdf(List<Result> results, Path dir, String what, String title, double goalMs, String goalLabel,
      String fileName) throws IOException {
    XYChart chart = new XYChartBuilder().width(900).height(500)
        .title(title)
        .xAxisTitle("latency (ms, log scale)").yAxisTitle("fraction of events").build();
    style(chart);
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setYAxisDecimalPattern("0.0");
    chart.getStyler().setYAxisTickMarkSpacingHint(60);
    chart.getStyler().setLegendPosition(LegendPosition.InsideSE);
    int i = 0;
    for (Result r : results) {
      List<Double> ms = (List<Double>) r.metrics().get(what + "_cdf_ms");
      if (ms == null || ms.isEmpty()) {
        continue;
      }
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (int k = 0; k < ms.size(); k++) {
        x.add(Math.max(0.1, ms.get(k)));
        y.add(k / (double) (ms.size() - 1));
      }
      String label = String.format("%s (p50 %.1f ms, p99 %.1f ms)", r.variant(), r.number(what + "_p50_ms"),
          r.number(what + "_p99_ms"));
      XYSeries s = chart.addSeries(label, x, y);
      s.setMarker(SeriesMarkers.NONE);
      s.setLineColor(PALETTE[i++ % PALETTE.length]);
      s.setLineStyle(new BasicStroke(2.5f));
    }
    if (i == 0) {
      return null;
    }
    XYSeries goal = chart.addSeries(goalLabel, List.of(goalMs, goalMs), List.of(0.0, 0.99));
    goal.setMarker(SeriesMarkers.NONE);
    goal.setLineColor(Color.GRAY);
    goal.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    Path file = dir.resolve(fileName);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
    return file;
  }

  /**
   * One bar per label (the mean of its values, e.g. of the rounds), for the scenarios of issues 3,
   * 4 and 5. Returns {@code null} when there is nothing to draw.
   */
  public static Path bars(Map<String, List<Double>> values, Path dir, String fileName, String title, String yTitle)
      throws IOException {
    if (values.isEmpty()) {
      return null;
    }
    Map<String, Double> bars = new LinkedHashMap<>();
    values.forEach((k, v) -> bars.put(k, v.stream().mapToDouble(Double::doubleValue).filter(x -> !Double.isNaN(x))
        .average().orElse(0)));
    CategoryChart chart = new CategoryChartBuilder().width(1000).height(520).title(title).xAxisTitle("")
        .yAxisTitle(yTitle).build();
    style(chart);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setXAxisLabelRotation(bars.size() > 4 ? 15 : 0);
    chart.addSeries(yTitle, new ArrayList<>(bars.keySet()), new ArrayList<>(bars.values())).setFillColor(PALETTE[0]);
    Path file = dir.resolve(fileName);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
    return file;
  }

  /** Groups {@code metric} of {@code scenario}'s results by variant (and an optional parameter). */
  public static Map<String, List<Double>> byVariant(List<Result> results, String scenario, String metric,
      java.util.function.Function<Result, String> label) {
    Map<String, List<Double>> m = new LinkedHashMap<>();
    for (Result r : results) {
      if (r.scenario().equals(scenario)) {
        m.computeIfAbsent(label.apply(r), k -> new ArrayList<>()).add(r.number(metric));
      }
    }
    return m;
  }

  private static void style(CategoryChart chart) {
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotBackgroundColor(Color.WHITE);
    chart.getStyler().setLegendPosition(LegendPosition.InsideNW);
    chart.getStyler().setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    chart.getStyler().setAvailableSpaceFill(0.8);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    chart.getStyler().setYAxisDecimalPattern("#,###");
  }

  private static void style(XYChart chart) {
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotBackgroundColor(Color.WHITE);
    chart.getStyler().setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
  }
}
