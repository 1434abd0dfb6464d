package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3 (FAULTS C1, O1, O5, design rule "outages burn no attempts"): the broker is killed
 * with {@code kill -9} after at least 20% of the events were published, stays down 15 s while the
 * writers keep writing, and is restarted. Everything must be delivered afterwards with no loss and
 * aggregate order kept, and the outage must cost no attempt: the relay runs with only 3 attempts
 * and millisecond backoffs (so burned attempts would quickly turn rows FAILED), marks rows
 * PUBLISHED instead of deleting them, and at the end every row is PUBLISHED with
 * {@code attempts = 0}.
 */
class BrokerOutageTest {
  private static final int EVENTS = TestDb.scaled(6_000, 1_000);
  private static final Duration OUTAGE = Duration.ofSeconds(15);
  private static TestDb db;
  private static KafkaBroker broker;

  @BeforeAll
  static void servers() throws Exception {
    db = Scenario.migratedDatabase();
    broker = KafkaBroker.start();
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void brokerDownFifteenSecondsLosesNothingAndBurnsNoAttempt() throws Exception {
    long started = System.nanoTime();
    String topic = Scenario.topicName("it-outage");
    broker.createTopic(topic, 8);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    Outbox outbox = Outbox.builder(store).build();
    RetryPolicy strict = RetryPolicy.builder().maxAttempts(3)
        .backoff(Duration.ofMillis(10), Duration.ofMillis(100)).build();

    Workload work = new Workload(db.dataSource(), outbox, 1_000, EVENTS, 8, 0.10, 200, 3);
    RelayStats beforeOutage;
    RelayStats afterOutage;
    RelayStats stats;
    CheckResult result;
    long recoveryMs;
    long restartMs;
    long pendingAtRestart;
    int writtenDuringOutage;
    try (KafkaPublisher kafka = Scenario.kafka(broker.bootstrapServers(), topic);
        Relay relay = Relay.builder(store, kafka).nodeId("it-outage").retryPolicy(strict)
            .completionMode(CompletionMode.MARK).build()) {
      relay.start();
      work.start();
      await("20% published").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
          .until(() -> publishedRows() >= EVENTS / 5);
      beforeOutage = relay.stats();
      int committedAtKill = work.committedCount();
      broker.kill();
      Thread.sleep(OUTAGE.toMillis());
      afterOutage = relay.stats();
      writtenDuringOutage = work.committedCount() - committedAtKill;
      pendingAtRestart = pendingRows();
      long restarting = System.nanoTime();
      broker.restart();
      restartMs = Scenario.millisSince(restarting);

      work.await(Duration.ofMinutes(2));
      long written = System.nanoTime();
      await("all rows published").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
          .until(() -> pendingRows() == 0);
      recoveryMs = Scenario.millisSince(restarting);
      result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(), work.rolledBack(),
          Duration.ofSeconds(60));
      stats = relay.stats();
      Scenario.report("C1", result.summary() + " rolledBack=" + work.rolledBack().size()
          + " publishedBeforeKill=" + beforeOutage.published() + " pendingAtRestart=" + pendingAtRestart
          + " outageMs=" + OUTAGE.toMillis() + " committedDuringOutage=" + writtenDuringOutage + " brokerRestartMs=" + restartMs
          + " allPublishedMsAfterRestart=" + recoveryMs + " drainAfterLastWriteMs=" + Scenario.millisSince(written)
          + " claimsDuringOutage=" + (afterOutage.batches() - beforeOutage.batches())
          + " outageRoundsDuringOutage=" + (afterOutage.outages() - beforeOutage.outages())
          + " relay=" + RelayProcess.line(stats) + " runtimeMs=" + Scenario.millisSince(started));
    }

    assertThat(writtenDuringOutage).as("writers kept committing through the outage").isGreaterThan(1_000);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(result.lost()).isZero();
    assertThat(result.orderViolations()).isZero();
    assertThat(Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'")).isZero();
    assertThat(Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE attempts > 0"))
        .as("rows that used an attempt because of the outage").isZero();
    assertThat(Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'"))
        .isEqualTo(work.committed().size());
    assertThat(stats.dead()).isZero();
    assertThat(stats.retried()).isZero();
  }

  private static long publishedRows() {
    return Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'");
  }

  private static long pendingRows() {
    return Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'");
  }
}
