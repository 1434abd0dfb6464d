package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1 (FAULTS A1, O1, O2, O4): 10,000 events over 1,000 aggregates written by 8
 * concurrent writers, about 10% of the transactions rolled back, published by one in-process relay
 * to an 8-partition topic. The topic must hold every committed event and none of the rolled-back
 * ones, each aggregate's first deliveries in commit order, and — no fault happened — no duplicate.
 */
class EndToEndOrderingTest {
  private static TestDb db;

  @BeforeAll
  static void database() throws Exception {
    db = Scenario.migratedDatabase();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void everyCommittedEventArrivesOnceInAggregateOrderAndNoRolledBackOne() throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-ordering");
    broker.createTopic(topic, 8);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();

    RelayStats stats;
    CheckResult result;
    Workload work = new Workload(db.dataSource(), outbox, 1_000, 10_000, 8, 0.10, 0, 1);
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-ordering").build()) {
      relay.start();
      work.start().await(Duration.ofMinutes(2));
      long written = System.nanoTime();
      await("outbox drained").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> Db.outboxRows(db.dataSource()) == 0);
      long drainMs = Scenario.millisSince(written);
      result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(), work.rolledBack(),
          Duration.ofSeconds(60));
      stats = relay.stats();
      Scenario.report("A1", result.summary() + " rolledBack=" + work.rolledBack().size()
          + " transactions=" + work.transactions() + " relayPublished=" + stats.published()
          + " drainAfterLastWriteMs=" + drainMs + " runtimeMs=" + Scenario.millisSince(started));
    }

    assertThat(work.committed()).hasSizeGreaterThan(8_500);
    assertThat(work.rolledBack()).hasSizeGreaterThan(500);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.phantom()).isZero();
    assertThat(result.orderViolations()).isZero();
    // Fault-free run: FAULTS.md O3 promises no duplicate at all.
    assertThat(result.duplicates()).as(result.describe(10)).isZero();
    assertThat(stats.dead()).isZero();
    assertThat(stats.fenced()).isZero();
  }
}
