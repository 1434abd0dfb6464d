package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivateNatsServer;
import io.twinbox.testkit.PrivateRabbitNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The full fault matrix, run only with {@code -Pfaults} (see the README): every scenario of
 * {@link Scenario#matrix()} (or those named by {@code -Dfaults.scenarios=B1,C1}) on every broker of
 * {@code -Dfaults.brokers} (default {@code kafka,rabbitmq}; also {@code nats}) with the producer's
 * database on {@code -Dfaults.store} ({@code postgresql}, the default, or {@code mariadb}) where the
 * row's faults can be played,
 * with {@code -Dfaults.n} events and seed {@code -Dfaults.seed}, one result line each, then
 * FAULTS-REPORT.md (rows of (row, broker, store) not run this time are kept from the previous report). Fails
 * when any scenario breaks an invariant — after writing the report.
 */
class FaultMatrixRun {
  @Test
  void matrix() throws Exception {
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    int n = Integer.getInteger("faults.n", 20_000);
    long seed = Long.getLong("faults.seed", 1);
    double maxRate = Double.parseDouble(System.getProperty("faults.rate", Double.toString(FaultRun.DEFAULT_MAX_RATE)));
    String only = System.getProperty("faults.scenarios", "all");
    // 0 = each row's own number of faults; otherwise every row played draws this many
    int faults = Integer.getInteger("faults.count", 0);
    String brokerList = System.getProperty("faults.brokers", "kafka,rabbitmq");
    String store = System.getProperty("faults.store", ProducerStore.POSTGRESQL).trim();
    ProducerStore.supported(store); // validates the name
    if (store.equals(ProducerStore.MARIADB) && !LocalServers.isUp("127.0.0.1", 3306)) {
      System.err.println("SKIPPED: MariaDB is not running on 127.0.0.1:3306");
      assertThat(LocalServers.isCi()).as("MariaDB missing with CI=true").isFalse();
      return;
    }
    Set<String> wanted = Arrays.stream(only.split(",")).map(String::trim).collect(Collectors.toSet());
    Path report = Path.of(System.getProperty("faults.report", "../FAULTS-REPORT.md"));
    List<ScenarioResult> results = new ArrayList<>();
    List<String> brokers = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (String name : brokerList.split(",")) {
      name = name.trim();
      if (name.equals("rabbitmq") && !PrivateRabbitNode.installed()) {
        System.err.println("SKIPPED: RabbitMQ is not installed at " + PrivateRabbitNode.SCRIPT);
        assertThat(LocalServers.isCi()).as("RabbitMQ missing with CI=true").isFalse();
        continue;
      }
      if (name.equals("nats") && !PrivateNatsServer.installed()) {
        System.err.println("SKIPPED: nats-server is not installed at " + PrivateNatsServer.BINARY);
        assertThat(LocalServers.isCi()).as("nats-server missing with CI=true").isFalse();
        continue;
      }
      brokers.add(name);
      try (BrokerUnderTest broker = switch (name) {
        case "kafka" -> new KafkaUnderTest(KafkaBroker.start());
        case "rabbitmq" -> new RabbitUnderTest(PrivateRabbitNode.start());
        case "nats" -> new NatsUnderTest(PrivateNatsServer.start());
        default -> throw new IllegalArgumentException("unknown broker " + name);
      }) {
        for (Scenario row : Scenario.matrix()) {
          Scenario scenario = faults > 0 ? row.withFaults(faults) : row;
          if (!wanted.contains("all") && !wanted.contains(scenario.id())
              || !scenario.playableOn(FaultRun.supported(broker, store), store)) {
            continue;
          }
          try (FaultRun run = new FaultRun(scenario, n, seed, broker, store, Path.of("target", "faults"), maxRate)) {
            ScenarioResult result = run.run();
            System.out.println(result.line());
            results.add(result);
          } catch (Exception e) {
            // A run that could not complete (a child that never started, a broker that did not come
            // back) is reported as such; the other rows still run.
            Throwable root = e;
            while (root.getCause() != null) {
              root = root.getCause();
            }
            String error = "[" + scenario.id() + " " + name + "/" + store + "] seed=" + seed + " ERROR " + e
                + (root == e ? "" : " (root cause: " + root + ")");
            System.out.println(error);
            e.printStackTrace();
            errors.add(error.replace('\n', ' '));
          }
        }
      }
    }
    String command = "./mvnw -B -pl twinbox-faults -am verify -Pfaults -Dtest=FaultMatrixRun"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dfaults.n=" + n + " -Dfaults.seed=" + seed + " -Dfaults.rate=" + Math.round(maxRate)
        + " -Dfaults.brokers=" + String.join(",", brokers)
        + (store.equals(ProducerStore.POSTGRESQL) ? "" : " -Dfaults.store=" + store)
        + (wanted.contains("all") ? "" : " -Dfaults.scenarios=" + only)
        + (faults > 0 ? " -Dfaults.count=" + faults : "")
        + (System.getProperty("faults.outageSeconds") == null ? ""
            : " -Dfaults.outageSeconds=" + System.getProperty("faults.outageSeconds"));
    ReportWriter.write(report, results, errors, command);
    List<String> failed = results.stream().filter(r -> !r.ok()).map(ScenarioResult::line).toList();
    assertThat(failed).as("scenarios that broke an invariant").isEmpty();
    assertThat(errors).as("scenarios that could not run").isEmpty();
  }
}
