package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report is keyed by (row, broker, store): a run replaces only its own keys and keeps the rest. */
class ReportWriterTest {
  @TempDir
  Path dir;

  private static ScenarioResult result(String row, String broker, String store, long seed) {
    FaultVerdict clean = FaultChecker.check(new RunFacts(List.of(), List.of(), List.of(), Map.of(), Set.of(),
        Map.of(), List.of(), Set.of(), Set.of(), 0));
    return new ScenarioResult(Scenario.matrix().stream().filter(s -> s.id().equals(row)).findFirst().orElseThrow(),
        broker, store, 100, seed, clean,
        Map.of(FaultKind.RELAY_KILL, 3), 0, new RelayStalls(0, 0), 10, 20);
  }

  private static final String B1 = "B1";
  private static final String B3 = "B3";

  @Test
  void aFencedFigureNamesTheRelayStallsThatExplainIt() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    ScenarioResult clean = result(B1, "kafka", "postgresql", 1);
    ScenarioResult fenced = new ScenarioResult(clean.scenario(), "nats", "postgresql", 100, 1, clean.verdict(),
        clean.faults(), 17, new RelayStalls(2950, 1), 10, 20);
    ReportWriter.write(file, List.of(clean, fenced), List.of(), "cmd -Dfaults.seed=1 -Dfaults.brokers=kafka,nats");
    String md = Files.readString(file);
    assertThat(md).contains("| 17 (relay stall 2950 ms, 1 renewals past the TTL) |")
        .contains("[B1 nats/postgresql] seed=1").contains("fenced=17 relayStallMs=2950 renewalsPastTtl=1")
        .contains("| 0 | 10 |  | OK |").contains("stands still for 1.33 s or more");
  }

  @Test
  void aRowsOwnFigureThatMissesFailsTheRowWhoseInvariantsHold() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    ScenarioResult clean = result("D5", "kafka", "postgresql", 1);
    ScenarioResult missed = new ScenarioResult(clean.scenario(), "kafka", "postgresql", 100, 1, clean.verdict(),
        clean.faults(), 0, new RelayStalls(0, 0), 10, 20, new RowFigures("parked 19 (expected 20)", false));
    assertThat(missed.verdict().ok()).isTrue();
    assertThat(missed.ok()).isFalse();
    ReportWriter.write(file, List.of(missed), List.of(), "cmd -Dfaults.seed=1 -Dfaults.brokers=kafka");
    String md = Files.readString(file);
    assertThat(md).contains("| 10 | parked 19 (expected 20) | **FAIL** |")
        .contains("row: parked 19 (expected 20) FAIL").contains("1 run(s) FAILED or could not run");
  }

  @Test
  void rowsOfAReportWithoutTheFiguresColumnAreKeptWithAnEmptyCell() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    Files.writeString(file, "```\ncmd -Dfaults.seed=1 -Dfaults.brokers=kafka\n```\n\n"
        + "| Row | Scenario | Broker | Store | Faults | Committed | Rolled back | Published | Delivered "
        + "| Lost (lib/broker) | Phantom | Dup deliveries | Dup effects | Order viol. | Apply order viol. | Stuck "
        + "| Failed | Parked | Parked healthy | Fenced | Drain ms | Result |\n"
        + "| B3 | relay SIGTERM | kafka | postgresql | relay_term×6 | 1 | 0 | 1 | 1 | 0 (0/0) | 0 | 0 | 0 | 0 | 0 | 0 "
        + "| 0 | 0 | 0 | 0 | 21 | OK |\n\n```\n[B3 kafka/postgresql] seed=1 OK\n```\n");
    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 1)), List.of(),
        "cmd -Dfaults.seed=1 -Dfaults.brokers=kafka -Dfaults.scenarios=B1");
    assertThat(Files.readString(file)).contains("| 0 | 0 | 0 | 0 | 21 |  | OK |").contains("2 scenario runs");
  }

  @Test
  void aSecondBrokerIsAddedAndARerunReplacesOnlyItsOwnRows() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 1)), List.of(),
        "cmd -Dfaults.seed=1 -Dfaults.brokers=kafka");
    ReportWriter.write(file, List.of(result(B1, "rabbitmq", "postgresql", 2)), List.of(),
        "cmd -Dfaults.seed=2 -Dfaults.brokers=rabbitmq");
    String both = Files.readString(file);
    assertThat(both)
        .contains("| B1 | relay kill -9 (after claim / after ack) | kafka | postgresql | relay_kill×3 |")
        .contains("| rabbitmq | postgresql | relay_kill×3 |").contains("[B1 kafka/postgresql] seed=1")
        .contains("[B1 rabbitmq/postgresql] seed=2").contains("cmd -Dfaults.seed=1 -Dfaults.brokers=kafka\n")
        .contains("cmd -Dfaults.seed=2 -Dfaults.brokers=rabbitmq\n")
        .contains("2 scenario runs, 6 faults, all invariants zero");

    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 3)),
        List.of("[C1 kafka/postgresql] seed=3 ERROR boom"), "cmd2 -Dfaults.seed=3 -Dfaults.brokers=kafka");
    String rerun = Files.readString(file);
    assertThat(rerun).doesNotContain("[B1 kafka/postgresql] seed=1").contains("[B1 kafka/postgresql] seed=3")
        .contains("[B1 rabbitmq/postgresql] seed=2").doesNotContain("cmd -Dfaults.seed=1")
        .contains("cmd2 -Dfaults.seed=3").contains("cmd -Dfaults.seed=2 -Dfaults.brokers=rabbitmq")
        .contains("1 run(s) FAILED or could not run");
  }

  @Test
  void aStoreAndARowAreKeysOfTheirOwnAndTheirCommandsStayOnlyWhileTheyProduceRows() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 1), result(B3, "kafka", "postgresql", 1)),
        List.of(), "all -Dfaults.seed=1 -Dfaults.brokers=kafka");
    ReportWriter.write(file, List.of(result(B1, "kafka", "mariadb", 1)), List.of(),
        "maria -Dfaults.seed=1 -Dfaults.brokers=kafka -Dfaults.store=mariadb -Dfaults.scenarios=B1");
    String three = Files.readString(file);
    assertThat(three).contains("| kafka | postgresql | relay_kill×3 |").contains("| kafka | mariadb | relay_kill×3 |")
        .contains("[B1 kafka/postgresql]").contains("[B3 kafka/postgresql]").contains("[B1 kafka/mariadb]")
        .contains("all -Dfaults.seed=1").contains("maria -Dfaults.seed=1").contains("3 scenario runs");

    // Only B1 on Kafka/PostgreSQL again: B3 still comes from the first command, which stays.
    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 5)), List.of(),
        "b1 -Dfaults.seed=5 -Dfaults.brokers=kafka -Dfaults.scenarios=B1");
    String partial = Files.readString(file);
    assertThat(partial).contains("[B1 kafka/postgresql] seed=5").doesNotContain("[B1 kafka/postgresql] seed=1")
        .contains("[B3 kafka/postgresql] seed=1").contains("[B1 kafka/mariadb] seed=1")
        .contains("all -Dfaults.seed=1").contains("maria -Dfaults.seed=1").contains("b1 -Dfaults.seed=5")
        .contains("3 scenario runs");

    // B3 too: the first command produces no row any more and is dropped.
    ReportWriter.write(file, List.of(result(B3, "kafka", "postgresql", 6)), List.of(),
        "b3 -Dfaults.seed=6 -Dfaults.brokers=kafka -Dfaults.scenarios=B3");
    assertThat(Files.readString(file)).doesNotContain("all -Dfaults.seed=1").contains("maria -Dfaults.seed=1")
        .contains("b1 -Dfaults.seed=5").contains("b3 -Dfaults.seed=6").contains("3 scenario runs");
  }

  @Test
  void aReportWithoutTheStoreColumnIsReadAsPostgresql() throws Exception {
    Path file = dir.resolve("FAULTS-REPORT.md");
    Files.writeString(file, """
        # Twinbox fault-injection report

        Reproduce with (one line per broker run that produced rows below):

        ```
        old -Dfaults.n=100 -Dfaults.seed=4 -Dfaults.brokers=kafka,rabbitmq
        ```

        | Row | Scenario | Broker | Faults | Committed | Rolled back | Published | Delivered | Lost (lib/broker) \
        | Phantom | Dup deliveries | Dup effects | Order viol. | Stuck | Failed | Parked | Fenced | Drain ms | Result |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
        | B1 | relay kill -9 (after claim / after ack) | kafka | relay_kill×6 | 90 | 10 | 90 | 90 | 0 (0/0) | 0 \
        | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 10 | OK |
        | B1 | relay kill -9 (after claim / after ack) | rabbitmq | relay_kill×6 | 90 | 10 | 90 | 90 | 0 (0/0) | 0 \
        | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 10 | OK |

        Result lines:

        ```
        [B1 kafka] seed=4 faults=6 OK
        [B1 rabbitmq] seed=4 faults=6 OK
        ```
        """);
    ReportWriter.write(file, List.of(result(B1, "kafka", "postgresql", 9)), List.of(),
        "new -Dfaults.seed=9 -Dfaults.brokers=kafka -Dfaults.scenarios=B1");
    String md = Files.readString(file);
    assertThat(md).contains("| B1 | relay kill -9 (after claim / after ack) | rabbitmq | postgresql | relay_kill×6 |")
        .doesNotContain("| kafka | relay_kill×6").contains("[B1 rabbitmq/postgresql] seed=4 faults=6 OK")
        .doesNotContain("[B1 kafka] seed=4").contains("old -Dfaults.n=100").contains("new -Dfaults.seed=9")
        .contains("2 scenario runs, 9 faults, all invariants zero")
        // The kept row predates the apply-order and parked-healthy columns: not judged, not zero; and
        // the row's own figures: none.
        .contains("| rabbitmq | postgresql | relay_kill×6 | 90 | 10 | 90 | 90 | 0 (0/0) | 0 | 0 | 0 | 0 | – | 0 | 0 "
            + "| 0 | – | 0 | 10 |  | OK |");
  }
}
