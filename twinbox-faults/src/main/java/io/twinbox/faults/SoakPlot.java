package io.twinbox.faults;

import io.twinbox.faults.SoakJudge.MinuteSample;
import io.twinbox.faults.SoakJudge.ProcessSample;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * The soak's PNG: nine panels over the run's minutes (live heap after GC, threads, open fds and
 * database sessions per child JVM; commit→apply p50/p99; committed and applied per second; pending
 * rows; load average; the broker's heap, threads and fds), one line per process name broken where the process was killed and started
 * again (a ring marks the first sample of each new process), the minute's fault as a red tick on
 * every panel's time axis, the judged windows shaded. Plain Java 2D: the bench's XChart is not in
 * the default build's repository, and the faults module is part of the default build.
 */
final class SoakPlot {
  /** The bench's palette (twinbox-bench Plots). */
  private static final Color[] PALETTE = {
      new Color(0x4C72B0), new Color(0xDD8452), new Color(0x55A868), new Color(0xC44E52),
      new Color(0x8172B3), new Color(0x937860), new Color(0xDA8BC3)};
  private static final int W = 760;
  private static final int H = 330;

  private SoakPlot() {}

  /** One line of a panel: (minute, value) points, NaN breaking the line, restarts marked. */
  record Line(String name, List<double[]> points, List<double[]> restarts) {}

  static void write(SoakRun.Result r, Path file) throws IOException {
    List<double[]> faults = r.faults().stream().map(f -> new double[] {f.elapsedSeconds() / 60}).toList();
    SoakJudge.Window early = SoakJudge.early(r.minutes());
    SoakJudge.Window late = SoakJudge.late(r.minutes());
    List<BufferedImage> panels = new ArrayList<>();
    // The broker's figures are ten times the children's: a panel of their own.
    List<ProcessSample> children = r.samples().stream().filter(s -> !s.process().equals("broker")).toList();
    List<ProcessSample> broker = r.samples().stream().filter(s -> s.process().equals("broker")).toList();
    panels.add(panel("live heap after full GC (MiB)", perProcess(children, s -> s.heapBytes() < 0 ? Double.NaN
        : s.heapBytes() / 1048576.0), faults, early, late));
    panels.add(panel("threads", perProcess(children, s -> s.threads() < 0 ? Double.NaN : s.threads()), faults,
        early, late));
    panels.add(panel("open file descriptors", perProcess(children, s -> s.fds() < 0 ? Double.NaN : s.fds()),
        faults, early, late));
    panels.add(panel("database sessions (pg_stat_activity)", perProcess(r.samples().stream()
        .filter(s -> !s.process().equals("broker")).toList(), s -> s.dbSessions()), faults, early, late));
    panels.add(panel("commit→apply latency (ms), effects applied in the minute", List.of(
        pipeline("p50", r.pipeline(), MinuteSample::p50Millis),
        pipeline("p99", r.pipeline(), MinuteSample::p99Millis)), faults, early, late));
    List<double[]> committedRate = new ArrayList<>();
    MinuteSample prev = null;
    for (MinuteSample m : r.pipeline()) {
      long before = prev == null ? 0 : prev.committedTotal();
      double seconds = prev == null ? m.elapsedSeconds() : m.elapsedSeconds() - prev.elapsedSeconds();
      committedRate.add(new double[] {m.minute(), (m.committedTotal() - before) / seconds});
      prev = m;
    }
    panels.add(panel("events/s: committed, applied", List.of(new Line("committed", committedRate, List.of()),
        pipeline("applied", r.pipeline(), m -> m.applied() / 60.0)), faults, early, late));
    panels.add(panel("pending outbox rows at the minute", List.of(pipeline("pending", r.pipeline(),
        m -> m.pending())), faults, early, late));
    panels.add(panel("load average (1 min), 2 cores", List.of(pipeline("load1", r.pipeline(), MinuteSample::load1)),
        faults, early, late));
    List<Line> kafka = new ArrayList<>();
    kafka.add(rename("live heap (MiB)", perProcess(broker, s -> s.heapBytes() < 0 ? Double.NaN
        : s.heapBytes() / 1048576.0)));
    kafka.add(rename("threads", perProcess(broker, s -> s.threads() < 0 ? Double.NaN : s.threads())));
    kafka.add(rename("open fds", perProcess(broker, s -> s.fds() < 0 ? Double.NaN : s.fds())));
    kafka.removeIf(l -> l == null);
    panels.add(panel("Kafka broker (killed and restarted by the nemesis)", kafka, faults, early, late));
    int cols = 2;
    int rows = (panels.size() + cols - 1) / cols;
    int top = 40;
    BufferedImage all = new BufferedImage(W * cols, top + H * rows, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = all.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, all.getWidth(), all.getHeight());
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(String.format(Locale.ROOT, "Soak: %d min at %.0f events/s, Kafka/PostgreSQL, seed %d, %d faults"
        + " (red ticks); shaded: judged windows (%s, %s)", r.minutes(), r.rate(), r.seed(), r.faults().size(), early,
        late), 12, 26);
    for (int i = 0; i < panels.size(); i++) {
      g.drawImage(panels.get(i), (i % cols) * W, top + (i / cols) * H, null);
    }
    g.dispose();
    ImageIO.write(all, "png", file.toFile());
  }

  /** One line per process name; a new pid starts a new segment. */
  static List<Line> perProcess(List<ProcessSample> samples, ToDoubleFunction<ProcessSample> value) {
    Map<String, Line> lines = new LinkedHashMap<>();
    Map<String, Long> lastPid = new LinkedHashMap<>();
    for (ProcessSample s : samples.stream().sorted(java.util.Comparator.comparing(ProcessSample::process)
        .thenComparingInt(ProcessSample::minute)).toList()) {
      Line line = lines.computeIfAbsent(s.process(), n -> new Line(n, new ArrayList<>(), new ArrayList<>()));
      Long before = lastPid.put(s.process(), s.pid());
      double v = value.applyAsDouble(s);
      if (before != null && before != s.pid()) {
        line.points().add(new double[] {Double.NaN, Double.NaN});
        line.restarts().add(new double[] {s.minute(), v});
      }
      line.points().add(new double[] {s.minute(), v});
    }
    return new ArrayList<>(lines.values());
  }

  private static Line rename(String name, List<Line> lines) {
    return lines.isEmpty() ? null : new Line(name, lines.get(0).points(), lines.get(0).restarts());
  }

  private static Line pipeline(String name, List<MinuteSample> minutes, ToDoubleFunction<MinuteSample> value) {
    List<double[]> points = new ArrayList<>();
    for (MinuteSample m : minutes) {
      points.add(new double[] {m.minute(), value.applyAsDouble(m)});
    }
    return new Line(name, points, List.of());
  }

  static BufferedImage panel(String title, List<Line> lines, List<double[]> faults, SoakJudge.Window early,
      SoakJudge.Window late) {
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    int left = 64;
    int right = W - 150;
    int plotTop = 30;
    int bottom = H - 40;
    double xMax = 1;
    double yMax = 0;
    for (Line l : lines) {
      for (double[] p : l.points()) {
        if (!Double.isNaN(p[0])) {
          xMax = Math.max(xMax, p[0]);
        }
        if (!Double.isNaN(p[1]) && !Double.isInfinite(p[1])) {
          yMax = Math.max(yMax, p[1]);
        }
      }
    }
    double step = niceStep(yMax <= 0 ? 1 : yMax / 5);
    double yTop = Math.max(step, Math.ceil(yMax / step) * step);
    double xSpan = xMax;
    java.util.function.DoubleUnaryOperator x = v -> left + (right - left) * v / xSpan;
    java.util.function.DoubleUnaryOperator y = v -> bottom - (bottom - plotTop) * v / yTop;
    g.setColor(new Color(0xEEF2F8));
    for (SoakJudge.Window w : List.of(early, late)) {
      int x0 = (int) x.applyAsDouble(w.from() - 0.5);
      int x1 = (int) x.applyAsDouble(Math.min(xMax, w.to() + 0.5));
      g.fillRect(Math.max(left, x0), plotTop, Math.max(1, x1 - Math.max(left, x0)), bottom - plotTop);
    }
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.setColor(Color.BLACK);
    g.drawString(title, left, 20);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setStroke(new BasicStroke(1));
    for (double v = 0; v <= yTop + step / 2; v += step) {
      int yy = (int) y.applyAsDouble(v);
      g.setColor(new Color(0xDDDDDD));
      g.drawLine(left, yy, right, yy);
      g.setColor(Color.DARK_GRAY);
      String label = step >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
      g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), yy + 4);
    }
    double xStep = niceStep(xMax / 10);
    for (double v = 0; v <= xMax + 1e-9; v += xStep) {
      int xx = (int) x.applyAsDouble(v);
      g.setColor(Color.DARK_GRAY);
      g.drawLine(xx, bottom, xx, bottom + 4);
      String label = String.format(Locale.ROOT, "%.0f", v);
      g.drawString(label, xx - g.getFontMetrics().stringWidth(label) / 2, bottom + 16);
    }
    g.drawString("minutes since the producer started", (left + right) / 2 - 90, bottom + 32);
    g.setColor(Color.BLACK);
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, plotTop, left, bottom);
    g.setColor(new Color(0xC44E52));
    g.setStroke(new BasicStroke(2));
    for (double[] f : faults) {
      int xx = (int) x.applyAsDouble(f[0]);
      g.drawLine(xx, bottom - 8, xx, bottom);
    }
    int legendY = plotTop + 4;
    for (int i = 0; i < lines.size(); i++) {
      Line l = lines.get(i);
      Color c = PALETTE[i % PALETTE.length];
      g.setColor(c);
      g.setStroke(new BasicStroke(1.8f));
      double[] prev = null;
      for (double[] p : l.points()) {
        if (Double.isNaN(p[0]) || Double.isNaN(p[1])) {
          prev = null;
          continue;
        }
        int px = (int) x.applyAsDouble(p[0]);
        int py = (int) y.applyAsDouble(p[1]);
        if (prev != null) {
          g.drawLine((int) x.applyAsDouble(prev[0]), (int) y.applyAsDouble(prev[1]), px, py);
        }
        g.fillOval(px - 2, py - 2, 4, 4);
        prev = p;
      }
      g.setStroke(new BasicStroke(1.2f));
      for (double[] p : l.restarts()) {
        if (!Double.isNaN(p[1])) {
          g.drawOval((int) x.applyAsDouble(p[0]) - 5, (int) y.applyAsDouble(p[1]) - 5, 10, 10);
        }
      }
      g.fillRect(right + 12, legendY + i * 16, 14, 4);
      g.setColor(Color.BLACK);
      g.drawString(l.name(), right + 30, legendY + i * 16 + 6);
    }
    g.setColor(Color.DARK_GRAY);
    g.drawString("○ restarted", right + 12, legendY + lines.size() * 16 + 10);
    g.dispose();
    return img;
  }

  private static double niceStep(double raw) {
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double n = raw / mag;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
  }
}
