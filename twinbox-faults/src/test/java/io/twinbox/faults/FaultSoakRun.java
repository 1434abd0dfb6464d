package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.LocalServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;

/**
 * The soak row (issue 21), run only on demand under {@code -Pfaults} (not a {@code *Test}, so the
 * default build never runs it; the profile's includes name only the matrix):
 *
 * <pre>
 * ./mvnw -B -pl twinbox-faults -am verify -Pfaults -Dtest=FaultSoakRun -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsoak.minutes=60 -Dsoak.rate=1000 -Dsoak.seed=21
 * </pre>
 *
 * {@code -Dsoak.minutes} (default 2: the smoke of the machinery), {@code -Dsoak.rate} committed
 * events/s (default 1000), {@code -Dsoak.seed}. With {@code -Dsoak.publish=true} the plot, the CSVs
 * and the flatness table are copied to {@code twinbox-faults/results/soak/} and the soak's section
 * at the end of FAULTS-REPORT.md is replaced. Fails when an invariant broke or a resource grew
 * beyond its tolerance ({@link SoakJudge}) — after writing everything.
 */
class FaultSoakRun {
  @Test
  void soak() throws Exception {
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    int minutes = Integer.getInteger("soak.minutes", 2);
    double rate = Double.parseDouble(System.getProperty("soak.rate", "1000"));
    long seed = Long.getLong("soak.seed", 21);
    boolean publish = Boolean.getBoolean("soak.publish");
    System.setProperty("java.awt.headless", "true");
    SoakRun.Result result;
    try (KafkaBroker kafka = KafkaBroker.start(); SoakRun run = new SoakRun(minutes, rate, seed, kafka,
        Path.of("target", "faults"))) {
      result = run.run();
    }
    String command = "./mvnw -B -pl twinbox-faults -am verify -Pfaults -Dtest=FaultSoakRun"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dsoak.minutes=" + minutes + " -Dsoak.rate=" + Math.round(rate)
        + " -Dsoak.seed=" + seed + (publish ? " -Dsoak.publish=true" : "");
    String section = SoakReport.section(result, command, "twinbox-faults/results/soak");
    Files.writeString(result.dir().resolve("report-section.md"), section);
    System.out.println(section);
    if (publish) {
      Path results = Path.of("results", "soak");
      Files.createDirectories(results);
      for (String f : new String[] {"soak.png", "samples.csv", "minutes.csv", "faults.csv", "flatness.md",
          "verdict.txt"}) {
        Files.copy(result.dir().resolve(f), results.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      }
      SoakReport.replaceSection(Path.of(System.getProperty("faults.report", "../FAULTS-REPORT.md")), section);
    }
    assertThat(result.verdict().ok()).as("invariants: %s", result.verdict().line()).isTrue();
    assertThat(result.flat()).as("flat resources and stable p99").isTrue();
  }
}
