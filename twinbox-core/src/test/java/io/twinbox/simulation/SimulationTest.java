package io.twinbox.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Core's deterministic simulation (FAULTS.md, issue 21): thousands of seeds, each a different setup,
 * schedule and set of faults, every invariant of {@link SimChecks} judged after each. A failing
 * seed's trace is written to {@code target/simulation/seed-<n>.txt}; replay it with
 * {@code ./mvnw -pl twinbox-core test-compile surefire:test@simulation -Dsim.seed=<n>} (see docs/simulation.md).
 */
class SimulationTest {
  private static final long FIRST = Long.getLong("sim.first", 1);
  private static final long SEEDS = Long.getLong("sim.seeds", 3_000);
  private static final Long ONE = Long.getLong("sim.seed");

  @Test
  void everySeedKeepsEveryInvariant() throws IOException {
    long first = ONE != null ? ONE : FIRST;
    long count = ONE != null ? 1 : SEEDS;
    long started = System.nanoTime();
    List<Simulation.Result> failed = new ArrayList<>();
    SimCounts figures = new SimCounts();
    SimCounts injected = new SimCounts();
    for (long seed = first; seed < first + count; seed++) {
      Simulation.Result r = Simulation.run(seed, ONE != null);
      figures.addAll(r.verdict().figures);
      injected.addAll(r.injected());
      if (!r.verdict().ok()) {
        failed.add(ONE != null ? r : Simulation.run(seed, true));
      }
      if (ONE != null) {
        writeTrace(r);
      }
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    System.out.printf("simulation: %d seeds from %d in %d ms; %d failed%n  figures: %s%n  faults: %s%n", count, first,
        ms, failed.size(), figures, injected);
    StringBuilder report = new StringBuilder();
    for (Simulation.Result r : failed.subList(0, Math.min(5, failed.size()))) {
      Path trace = writeTrace(r);
      report.append("\nseed ").append(r.seed()).append(" (").append(r.setup()).append("): ")
          .append(r.verdict().violations).append("\n  ").append(String.join("\n  ", r.verdict().examples))
          .append("\n  trace: ").append(trace).append("\n  replay: ./mvnw -pl twinbox-core test-compile surefire:test@simulation -Dsim.log=info -Dsim.seed=")
          .append(r.seed());
    }
    assertThat(failed.stream().map(Simulation.Result::seed).toList()).as("seeds that broke an invariant:%s", report)
        .isEmpty();
  }

  @Test
  void aSeedReplaysExactly() {
    for (long seed : new long[] {3, 42, 977}) {
      Simulation.Result a = Simulation.run(seed, false);
      Simulation.Result b = Simulation.run(seed, false);
      assertThat(b.traceHash()).as("trace of seed %d", seed).isEqualTo(a.traceHash());
      assertThat(b.steps()).isEqualTo(a.steps());
      assertThat(b.verdict().figures.toString()).isEqualTo(a.verdict().figures.toString());
    }
  }

  private static Path writeTrace(Simulation.Result r) throws IOException {
    Path dir = Path.of("target", "simulation");
    Files.createDirectories(dir);
    Path file = dir.resolve("seed-" + r.seed() + ".txt");
    List<String> lines = new ArrayList<>();
    lines.add("seed " + r.seed() + ": " + r.setup());
    lines.add("violations: " + r.verdict().violations);
    lines.addAll(r.verdict().examples);
    lines.add("figures: " + r.verdict().figures);
    lines.add("faults: " + r.injected());
    lines.add("");
    lines.addAll(r.trace());
    Files.write(file, lines);
    return file;
  }
}
