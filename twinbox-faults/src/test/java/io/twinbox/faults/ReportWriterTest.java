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
    return result(Scenario.matrix().get(1), broker, seed);
  }

  private static ScenarioResult result(Scenario scenario, String broker, long seed) {
    FaultVerdict clean = FaultChecker.check(new RunFacts(List.of(), List.of(), List.of(), Map.of(), Set.of(),
        Map.of(), Set.of(), Set.of(), 0));
    return new ScenarioResult(scenario, broker, 100, seed, clean, Map.of(FaultKind.RELAY_KILL, 3),
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

  @Test
  void aRunOfOneScenarioReplacesOnlyThatRowAndKeepsTheCommandOfTheOthers() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    Scenario e1 = Scenario.matrix().stream().filter(s -> s.id().equals("E1")).findFirst().orElseThrow();
    ReportWriter.write(file, List.of(result("kafka", 1), result(e1, "kafka", 1)), List.of(), List.of("kafka"),
        "cmd -Dfaults.n=20000 -Dfaults.brokers=kafka", 100, 1);
    ReportWriter.write(file, List.of(result(e1.withFaults(60), "kafka", 2)), List.of(), List.of("kafka"),
        "cmd -Dfaults.n=100000 -Dfaults.brokers=kafka -Dfaults.scenarios=E1 -Dfaults.count=60", 100, 2);
    String report = Files.readString(file);
    assertThat(report).contains("[B1 kafka] seed=1").contains("[E1 kafka] seed=2").doesNotContain("[E1 kafka] seed=1")
        .contains("cmd -Dfaults.n=20000 -Dfaults.brokers=kafka\n")
        .contains("cmd -Dfaults.n=100000 -Dfaults.brokers=kafka -Dfaults.scenarios=E1 -Dfaults.count=60\n")
        .contains("2 scenario runs");

    ReportWriter.write(file, List.of(result(e1, "kafka", 3)), List.of(), List.of("kafka"),
        "cmd -Dfaults.n=100000 -Dfaults.brokers=kafka -Dfaults.scenarios=E1 -Dfaults.count=61", 100, 3);
    assertThat(Files.readString(file)).doesNotContain("-Dfaults.count=60").contains("-Dfaults.count=61")
        .contains("cmd -Dfaults.n=20000 -Dfaults.brokers=kafka\n");
  }
}
