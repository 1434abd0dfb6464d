package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.faults.SoakJudge.Figure;
import io.twinbox.faults.SoakJudge.MinuteSample;
import io.twinbox.faults.SoakJudge.ProcessSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's machinery without the soak: the sampler's readers, the flatness judgement, the plot, the report section. */
class SoakJudgeTest {
  @TempDir
  Path tmp;

  @Test
  void readsThisProcess() {
    long pid = ProcessHandle.current().pid();
    assertThat(ResourceSampler.threads(pid)).isGreaterThan(1);
    assertThat(ResourceSampler.fileDescriptors(pid)).isGreaterThan(2);
    assertThat(ResourceSampler.threads(Integer.MAX_VALUE)).isEqualTo(-1);
    assertThat(ResourceSampler.loadAverage()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void histogramTotalIsTheLiveBytes() {
    String histogram = """
        1234:
         num     #instances         #bytes  class name (module)
        -------------------------------------------------------
           1:         12345        1048576  [B (java.base@17.0.15)
           2:           100           2400  java.lang.String (java.base@17.0.15)
        Total         12445        1050976
        """;
    assertThat(ResourceSampler.histogramTotal(histogram)).isEqualTo(1_050_976);
    assertThat(ResourceSampler.histogramTotal("1234:\nno such process")).isEqualTo(-1);
  }

  @Test
  void windowsOfAnHourAndOfAShortRun() {
    assertThat(SoakJudge.early(60)).isEqualTo(new SoakJudge.Window(5, 20));
    assertThat(SoakJudge.late(60)).isEqualTo(new SoakJudge.Window(46, 60));
    assertThat(SoakJudge.early(4)).isEqualTo(new SoakJudge.Window(1, 1));
    assertThat(SoakJudge.late(4)).isEqualTo(new SoakJudge.Window(4, 4));
    assertThat(SoakJudge.early(2).from()).isLessThanOrEqualTo(SoakJudge.late(2).to());
  }

  @Test
  void aFlatRunIsFlatEvenThroughRestarts() {
    List<ProcessSample> samples = run(60, 0, 0);
    List<Figure> figures = SoakJudge.judge(samples, minutes(60, 0), 60);
    assertThat(figures).allMatch(Figure::flat, "flat");
    assertThat(figures).extracting(Figure::kind).contains("relay", "consumer", "producer", "pipeline");
  }

  @Test
  void aLeakIsNotFlat() {
    // a relay keeping 100 bytes per event at 500 events/s: 3 MB a minute
    List<Figure> heap = SoakJudge.judge(run(60, 3 << 20, 0), minutes(60, 0), 60);
    assertThat(heap).filteredOn(f -> !f.flat()).extracting(f -> f.kind() + " " + f.figure())
        .containsExactly("relay live heap after GC (MiB)");
    // a consumer leaking one socket a minute
    List<Figure> fds = SoakJudge.judge(run(60, 0, 1), minutes(60, 0), 60);
    assertThat(fds).filteredOn(f -> !f.flat()).extracting(f -> f.kind() + " " + f.figure())
        .containsExactly("consumer open fds");
    // p99 creeping up 5 ms a minute
    List<Figure> p99 = SoakJudge.judge(run(60, 0, 0), minutes(60, 5), 60);
    assertThat(p99).filteredOn(f -> !f.flat()).extracting(Figure::kind).containsExactly("pipeline");
  }

  @Test
  void quantilesAreNearestRank() {
    long[] sorted = new long[100];
    for (int i = 0; i < 100; i++) {
      sorted[i] = i + 1;
    }
    assertThat(SoakJudge.quantile(sorted, 0.99)).isEqualTo(99);
    assertThat(SoakJudge.quantile(sorted, 0.5)).isEqualTo(50);
    assertThat(SoakJudge.quantile(new long[0], 0.5)).isNaN();
  }

  @Test
  void plotsAndReportsAndTheMatrixKeepsTheSection() throws Exception {
    System.setProperty("java.awt.headless", "true");
    List<SoakRun.Fault> faults = new ArrayList<>();
    for (int k = 1; k <= 60; k++) {
      faults.add(new SoakRun.Fault(k * 60 - 30, SoakRun.KINDS.get(k % SoakRun.KINDS.size()), "relay-0", 900));
    }
    List<ProcessSample> samples = run(60, 0, 0);
    List<MinuteSample> minutes = minutes(60, 0);
    SoakRun.Result result = new SoakRun.Result(60, 1000, 21, 3_789_474, true, null, faults, samples, minutes,
        SoakJudge.judge(samples, minutes, 60), 0, 5000, 3_700_000, tmp);
    Path png = tmp.resolve("soak.png");
    SoakPlot.write(result, png);
    assertThat(ImageIO.read(png.toFile()).getWidth()).isGreaterThan(1000);

    Path report = tmp.resolve("FAULTS-REPORT.md");
    Files.writeString(report, "# Fault report\n\n| Row | x | y | z |\n");
    String section = SoakReport.BEGIN + "\n\n## Soak\n\n| relay | heap | 1 | 1 |\n\n" + SoakReport.END + "\n";
    SoakReport.replaceSection(report, section);
    SoakReport.replaceSection(report, section);
    String text = Files.readString(report);
    assertThat(text).startsWith("# Fault report").endsWith(section);
    assertThat(text.indexOf(SoakReport.BEGIN)).isEqualTo(text.lastIndexOf(SoakReport.BEGIN));
    assertThat(SoakReport.matrixLines(Files.readAllLines(report))).noneMatch(l -> l.contains("relay"));
    assertThat(SoakReport.kept(report)).contains("## Soak").endsWith(SoakReport.END + "\n");
    assertThat(SoakRun.plan(60, new Random(1))).hasSize(60);
    assertThat(SoakRun.plan(60, new Random(1)).stream().distinct().count()).isEqualTo(SoakRun.KINDS.size());
    assertThat(SoakRun.plan(60, new Random(1)).stream().filter(k -> k == FaultKind.BROKER_KILL).count())
        .isEqualTo(5);
    assertThat(SoakRun.counts(faults)).isInstanceOf(Map.class);
  }

  /** Samples of a run: two relays (relay-0 restarted at minute 30), two consumers, a producer, with noise. */
  private static List<ProcessSample> run(int duration, long relayHeapLeakPerMinute, int consumerFdLeakPerMinute) {
    Random random = new Random(7);
    List<ProcessSample> out = new ArrayList<>();
    for (int m = 0; m <= duration; m++) {
      for (String p : List.of("relay-0", "relay-1", "consumer-0", "consumer-1", "producer", "broker")) {
        long pid = p.equals("relay-0") && m >= 30 ? 2000 : p.hashCode();
        long heap = (20L << 20) + random.nextInt(2 << 20)
            + (p.startsWith("relay") && pid != 2000 ? relayHeapLeakPerMinute * m : 0);
        int fds = 60 + random.nextInt(3) + (p.startsWith("consumer") ? consumerFdLeakPerMinute * m : 0);
        out.add(new ProcessSample(m, m * 60.0, p, pid, heap, 40 + random.nextInt(2), fds, 2 + random.nextInt(2)));
      }
    }
    return out;
  }

  private static List<MinuteSample> minutes(int duration, double p99CreepPerMinute) {
    Random random = new Random(9);
    List<MinuteSample> out = new ArrayList<>();
    for (int m = 1; m <= duration; m++) {
      out.add(new MinuteSample(m, m * 60.0, 60_000, 20 + random.nextInt(5), 200 + random.nextInt(40)
          + p99CreepPerMinute * m, 900, 60_000L * m, 100, 3 + random.nextDouble()));
    }
    return out;
  }
}
