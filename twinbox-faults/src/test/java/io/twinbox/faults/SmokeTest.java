package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.LocalServers;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The smoke tier of the fault suite, part of every {@code mvn verify}: N = 5,000 events, Kafka,
 * every fault kind Kafka supports once but a database restart (relay and consumer kill -9 / SIGTERM / SIGSTOP, a relay
 * halted between its broker acks and its completion, broker kill and restart, relay sessions
 * terminated, relay↔database proxy reset / blackhole / latency / lost replies, relay↔broker link
 * reset / blackhole / latency / lost acks, a long-held transaction, a poison record) after 20%
 * progress, then a full drain: all invariants zero, the consumer's apply order and parked healthy
 * messages among them.
 */
class SmokeTest {
  @Test
  void everyFaultOnceLosesNothingAndAppliesNothingTwice() throws Exception {
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    ScenarioResult result;
    try (BrokerUnderTest broker = new KafkaUnderTest(KafkaBroker.start());
        FaultRun run = new FaultRun(Scenario.smoke(), 5_000, Long.getLong("faults.seed", 7), broker,
            Path.of("target", "faults"))) {
      result = run.run();
      assertThat(result.faultTotal()).isEqualTo(
          Scenario.smoke().faultCount(FaultRun.supported(broker, ProducerStore.POSTGRESQL)));
    }
    FaultVerdict v = result.verdict();
    System.out.println(result.line());
    assertThat(v.ok()).as(v.describe(10)).isTrue();
    assertThat(v.lost()).isZero();
    assertThat(v.phantom()).isZero();
    assertThat(v.duplicateEffects()).isZero();
    assertThat(v.orderViolations()).isZero();
    assertThat(v.applyOrderViolations()).isZero();
    assertThat(v.parkedHealthy()).isZero();
    assertThat(v.stuck()).isZero();
    assertThat(v.rolledBack()).isPositive();
    assertThat(v.foreignRecords()).isEqualTo(1);
  }
}
