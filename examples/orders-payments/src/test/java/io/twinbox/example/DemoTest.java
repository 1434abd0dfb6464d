package io.twinbox.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Acceptance 4: the demo command runs the example end to end and exits 0 with the verification
 * table — on its embedded defaults (its own PostgreSQL and Kafka broker, as on a fresh clone), and
 * with {@code --chaos} against the machine's servers, still ending with lost = 0 and duplicate
 * effects = 0. Issue 19: a burst reported as throughput, then a paced steady phase reported as
 * latency, both covered by the same checks.
 */
class DemoTest {

  @Test
  void runsOnItsEmbeddedDefaultsAndPrintsThePassingTable() {
    TestServers.Output out = new TestServers.Output();
    Demo demo = new Demo();
    int exit = new CommandLine(demo).setOut(out.writer).setErr(out.writer)
        .execute("--orders", "300", "--customers", "30", "--steady-rate", "50", "--steady-seconds", "4");

    assertThat(exit).as(out.text()).isZero();
    assertThat(out.text())
        .contains("embedded PostgreSQL", "Kafka broker process")
        .contains("placed 500/500")
        .containsPattern("orders placed \\(committed = rows in orders\\) +500 +500 +ok")
        .containsPattern("lost \\(placed, never paid or settled\\) +0 +0 +ok")
        .containsPattern("duplicate effects \\(wallets debited twice\\) +0 +0 +ok")
        .containsPattern("burst throughput \\(300 orders, unpaced\\) +[\\d,]+ orders/s \\(all settled in")
        .containsPattern("steady phase: orders placed at 50/s +200 in [\\d.]+ s")
        .containsPattern("steady-state latency at 50 orders/s p50 / p99 / max +[\\d,]+ / [\\d,]+ / [\\d,]+ ms")
        .contains("PASSED");
    DemoRun.Result result = demo.result();
    assertThat(result.passed()).isTrue();
    assertThat(result.placed()).isEqualTo(500);
    assertThat(result.first().placed()).isEqualTo(300);
    assertThat(result.first().settledAfter()).isNotNull();
    assertThat(result.first().settledPerSecond()).isPositive();
    assertThat(result.first().latency().count()).as("burst orders measured").isEqualTo(300);

    Phase steady = result.steady();
    assertThat(steady).isNotNull();
    assertThat(steady.ratePerSecond()).isEqualTo(50);
    assertThat(steady.placed()).as("rate x duration").isEqualTo(200);
    // Paced: the 200th order is not due before 199/50 s after the first.
    assertThat(steady.placing()).isGreaterThanOrEqualTo(Duration.ofMillis(199 * 1000 / 50));
    assertThat(steady.latency().count()).as("steady orders measured, each once").isEqualTo(200);
    assertThat(steady.latency().p50Ms()).isPositive().isLessThanOrEqualTo(steady.latency().p99Ms());
    assertThat(steady.latency().p99Ms()).isLessThanOrEqualTo(steady.latency().maxMs());
  }

  @Test
  void chaosStillEndsWithNothingLostAndNothingTwice() {
    try (PostgresDatabase admin = PostgresDatabase.create()) {
      TestServers.Output out = new TestServers.Output();
      Demo demo = new Demo();
      int exit = new CommandLine(demo).setOut(out.writer).setErr(out.writer).execute(
          "--orders", "1000", "--customers", "100", "--chaos", "--steady-rate", "100", "--steady-seconds", "3",
          "--jdbc-url", admin.jdbcUrl(), "--db-user", admin.user(), "--db-password", admin.password(),
          "--bootstrap-servers", KafkaBroker.shared().bootstrapServers());

      assertThat(exit).as(out.text()).isZero();
      DemoRun.Result result = demo.result();
      assertThat(result.checks()).allMatch(Check::ok);
      // The checks ran over both phases: 1,000 burst orders and 300 paced ones.
      assertThat(result.placed()).isEqualTo(1300);
      assertThat(result.steady().placed()).isEqualTo(300);
      assertThat(out.text()).containsPattern("orders placed \\(committed = rows in orders\\) +1,300 +1,300 +ok");
      Chaos.Counts chaos = result.chaos();
      assertThat(chaos.sentTwice()).as("messages published twice").isPositive();
      assertThat(chaos.relayRestarts()).as("relay restarts").isPositive();
      assertThat(chaos.consumerRestarts()).as("consumer restarts").isPositive();
      assertThat(chaos.resends()).as("OrderCreated repeated under a new id").isPositive();
      assertThat(result.duplicatesSuppressed()).as("inbox duplicates").isGreaterThanOrEqualTo(chaos.sentTwice());
      assertThat(out.text()).contains("chaos: messages published twice")
          .containsPattern("steady-state latency at 100 orders/s p50 / p99 / max .* ms \\(under chaos\\)")
          .contains("PASSED");
    }
  }
}
