package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Acceptance 4: the demo command runs the example end to end and exits 0 with the verification
 * table — on its embedded defaults (its own PostgreSQL and Kafka broker, as on a fresh clone), and
 * with {@code --chaos} against the machine's servers, still ending with lost = 0 and duplicate
 * effects = 0.
 */
class DemoTest {

  @Test
  void runsOnItsEmbeddedDefaultsAndPrintsThePassingTable() {
    TestServers.Output out = new TestServers.Output();
    Demo demo = new Demo();
    int exit = new CommandLine(demo).setOut(out.writer).setErr(out.writer)
        .execute("--orders", "300", "--customers", "30");

    assertThat(exit).as(out.text()).isZero();
    assertThat(out.text())
        .contains("embedded PostgreSQL", "Kafka broker process")
        .contains("placed 300/300")
        .containsPattern("lost \\(placed, never paid or settled\\) +0 +0 +ok")
        .containsPattern("duplicate effects \\(wallets debited twice\\) +0 +0 +ok")
        .contains("PASSED");
    assertThat(demo.result().passed()).isTrue();
    assertThat(demo.result().placed()).isEqualTo(300);
  }

  @Test
  void chaosStillEndsWithNothingLostAndNothingTwice() {
    try (PostgresDatabase admin = PostgresDatabase.create()) {
      TestServers.Output out = new TestServers.Output();
      Demo demo = new Demo();
      int exit = new CommandLine(demo).setOut(out.writer).setErr(out.writer).execute(
          "--orders", "1000", "--customers", "100", "--chaos",
          "--jdbc-url", admin.jdbcUrl(), "--db-user", admin.user(), "--db-password", admin.password(),
          "--bootstrap-servers", KafkaBroker.shared().bootstrapServers());

      assertThat(exit).as(out.text()).isZero();
      DemoRun.Result result = demo.result();
      assertThat(result.checks()).allMatch(Check::ok);
      Chaos.Counts chaos = result.chaos();
      assertThat(chaos.sentTwice()).as("messages published twice").isPositive();
      assertThat(chaos.relayRestarts()).as("relay restarts").isPositive();
      assertThat(chaos.consumerRestarts()).as("consumer restarts").isPositive();
      assertThat(chaos.resends()).as("OrderCreated repeated under a new id").isPositive();
      assertThat(result.duplicatesSuppressed()).as("inbox duplicates").isGreaterThanOrEqualTo(chaos.sentTwice());
      assertThat(out.text()).contains("chaos: messages published twice").contains("PASSED");
    }
  }
}
