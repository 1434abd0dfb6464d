package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testing.RecordingTransport;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Companion of acceptance 3 for outages that fail fast (connection refused, producer closed, topic
 * metadata unknown — what a relay meets when it starts while the broker is down): for 6 s every
 * send answers UNAVAILABLE at once while the writers keep committing. The relay must back off
 * (100 ms doubling, DESIGN.md "broker outages trip a back-off") instead of claiming a batch again
 * on every commit notification (turned on for this test where the store has them), must burn no attempt, and must deliver everything once the broker
 * answers again.
 */
class OutageBackoffTest {
  private static final Duration OUTAGE = Duration.ofSeconds(6);
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
  void fastFailingOutageBacksOffAndBurnsNoAttempt() throws Exception {
    long started = System.nanoTime();
    KafkaBroker broker = KafkaBroker.shared();
    String topic = Scenario.topicName("it-backoff");
    broker.createTopic(topic, 8);
    JdbcStore store = JdbcStore.builder(db.dataSource()).build();
    if (store.dialect().name().equals("postgresql")) {
      // The back-off must hold even when every commit signals the relay (opt-in on PostgreSQL).
      store.setCommitNotifications(true);
    }
    Outbox outbox = Outbox.builder(store).build();
    RecordingTransport transport = RecordingTransport.wrapping(Scenario.kafka(broker.bootstrapServers(), topic));
    Workload work = new Workload(db.dataSource(), outbox, 200, 2_400, 4, 0.0, 200, 7);
    RelayStats before;
    RelayStats after;
    RelayStats end;
    try (Relay relay = Relay.builder(store, transport).nodeId("it-backoff").completionMode(CompletionMode.MARK)
        .build()) {
      relay.start();
      work.start();
      await("some published").atMost(Duration.ofSeconds(30)).until(() -> relay.stats().published() >= 200);
      transport.unavailable(true);
      before = relay.stats();
      Thread.sleep(OUTAGE.toMillis());
      after = relay.stats();
      transport.unavailable(false);
      work.await(Duration.ofMinutes(1));
      await("all published").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status <> 'PUBLISHED'") == 0);
      end = relay.stats();
    } finally {
      transport.close();
    }
    CheckResult result = Scenario.readAndCheck(broker.bootstrapServers(), topic, work.committed(), work.rolledBack(),
        Duration.ofSeconds(60));
    long rounds = after.outages() - before.outages();
    long claims = after.batches() - before.batches();
    Scenario.report("C1-fast", result.summary() + " outageMs=" + OUTAGE.toMillis() + " claimsDuringOutage=" + claims
        + " outageRoundsDuringOutage=" + rounds + " writesPerSecond=200 relay=" + RelayProcess.line(end)
        + " runtimeMs=" + Scenario.millisSince(started));

    assertThat(result.ok()).as(result.describe(10)).isTrue();
    assertThat(Db.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE attempts > 0")).isZero();
    assertThat(end.dead()).isZero();
    // Two workers backing off 100, 200, 400, ... ms (capped at 10 s) fit about 2 x 7 rounds into
    // 6 s; 40 leaves room for slow machines. Waking up on every commit instead gives hundreds.
    assertThat(claims).as("claims during a %d ms outage with 200 commits/s", OUTAGE.toMillis()).isLessThanOrEqualTo(40);
  }
}
