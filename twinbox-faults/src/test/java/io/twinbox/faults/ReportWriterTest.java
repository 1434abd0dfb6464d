package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report keeps the rows, lines and command of a broker that the latest run did not play. */
class ReportWriterTest {
  @TempDir
  Path dir;

  private static ScenarioResult result(String broker, long seed) {
    FaultVerdict clean = FaultChecker.check(new RunFacts(List.of(), List.of(), List.of(), Map.of(), Set.of(),
        Map.of(), Set.of(), Set.of(), 0));
    return new ScenarioResult(Scenario.matrix().get(1), broker, 100, seed, clean, Map.of(FaultKind.RELAY_KILL, 3),
        0, 10, 20);
  }

  @Test
  void aSecondBrokerIsAddedAndARerunReplacesOnlyItsOwnRows() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    ReportWriter.write(file, List.of(result("kafka", 1)), List.of(), List.of("kafka"), "cmd -Dfaults.brokers=kafka",
        100, 1);
    ReportWriter.write(file, List.of(result("rabbitmq", 2)), List.of(), List.of("rabbitmq"),
        "cmd -Dfaults.brokers=rabbitmq", 100, 2);
    String both = Files.readString(file);
    assertThat(both).contains("| B1 | relay kill -9 (after claim / after ack) | kafka | relay_kill×3 |")
        .contains("| rabbitmq | relay_kill×3 |").contains("[B1 kafka] seed=1").contains("[B1 rabbitmq] seed=2")
        .contains("cmd -Dfaults.brokers=kafka\n").contains("cmd -Dfaults.brokers=rabbitmq\n")
        .contains("2 scenario runs, 6 faults, all invariants zero");

    ReportWriter.write(file, List.of(result("kafka", 3)), List.of("[C1 kafka] seed=3 ERROR boom"), List.of("kafka"),
        "cmd2 -Dfaults.brokers=kafka", 100, 3);
    String rerun = Files.readString(file);
    assertThat(rerun).doesNotContain("[B1 kafka] seed=1").contains("[B1 kafka] seed=3").contains("[B1 rabbitmq] seed=2")
        .doesNotContain("cmd -Dfaults.brokers=kafka\n").contains("cmd2 -Dfaults.brokers=kafka")
        .contains("1 run(s) FAILED or could not run");
  }
}
