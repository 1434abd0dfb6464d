package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay (a private cluster with wal_level=logical) moves a streamed poison event to FAILED
 * through the same publisher and completion as the polling relay, so its dead letter is pending in
 * the same update and the relay's dead-letter loop, run over the stream lease, sends it once.
 */
class PostgresWalDeadLetterTest {
  private static LogicalCluster pg;
  private static DataSource ds;

  @BeforeAll
  static void cluster() {
    pg = LogicalCluster.start(Map.of("max_replication_slots", "3", "max_wal_senders", "4"));
    ds = pg.database("dlq");
    JdbcStore.builder(ds).build().migrate();
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void aStreamedPoisonEventIsDeadLetteredOnceAndItsAggregateHeld() throws Exception {
    JdbcStore store = JdbcStore.builder(ds).build();
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.rejected("too large"));
    try (Relay relay = Relay.builder(store, t).mode(RelayMode.WAL).walSlot("twinbox_dlq").deadLetters(true)
        .leaseTtl(Duration.ofSeconds(5)).retryPolicy(RetryPolicy.builder().maxAttempts(2).build()).build()) {
      relay.start();
      Outbox outbox = Outbox.builder(store).build();
      UUID bad;
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        bad = outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "w-1")
            .payload("{\"poison\":true}").build());
        outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "w-1").payload("{\"n\":2}").build());
        outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "w-2").payload("{\"n\":1}").build());
        c.commit();
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> t.deadLettered().size() == 1 && t.acked().size() == 1);
      Thread.sleep(1_500);
      assertThat(t.deadLettered()).hasSize(1);
      DeadLetter d = t.deadLettered().get(0);
      assertThat(d.message().id()).isEqualTo(bad);
      assertThat(d.reason()).contains("too large");
      assertThat(d.attempts()).isEqualTo(1);
      assertThat(d.firstFailedAt()).isNotNull();
      assertThat(t.acked()).extracting(m -> m.aggregateId()).containsExactly("w-2");
      assertThat(io.twinbox.testkit.contract.Sql.rows(ds,
          "SELECT status || '|' || coalesce(dead_letter, '-') FROM twinbox_outbox WHERE aggregate_id = 'w-1'"
              + " ORDER BY sequence")).containsExactly("FAILED|SENT", "PENDING|-");
    }
    store.dropWalSlot("twinbox_dlq");
  }
}
