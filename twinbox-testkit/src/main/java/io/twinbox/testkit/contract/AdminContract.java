package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.OutboxStatus;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What operators see and do: status counts that match the rows, FAILED events listed, retry and
 * skip that unblock an aggregate, retention of PUBLISHED rows in small batches.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AdminContract {
  private StoreFixture fixture;
  private DataSource ds;
  private OutboxAdminStore admin;
  private Outbox outbox;

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
    admin = fixture.adminStore();
    outbox = Outbox.builder(fixture.store()).build();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset() throws Exception {
    Sql.reset(ds);
  }

  private UUID write(String aggregateId, int n) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder(n == 1 ? "Poison" : "OrderCreated", 1)
          .aggregate("Order", aggregateId).payload("{\"n\":" + n + "}").build());
      c.commit();
      return id;
    }
  }

  @Test
  final void statusListingRetryAndSkipWorkOnAFailedEvent() throws Exception {
    Set<UUID> poisoned = ConcurrentHashMap.newKeySet();
    UUID poison = write("a", 1);
    UUID behind = write("a", 2);
    UUID other = write("b", 2);
    poisoned.add(poison);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> poisoned.contains(m.id()), PublishOutcome.rejected("too large"));
    try (Relay r = Relay.builder(fixture.store(), t).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50)).retryPolicy(RetryPolicy.builder().maxAttempts(2).build()).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().stream().anyMatch(m -> m.id().equals(other)));
      await().atMost(Duration.ofSeconds(20)).until(() -> admin.status().failed() == 1);
      OutboxStatus s = admin.status();
      assertThat(s.pending()).isEqualTo(1); // the event held behind the failed one
      assertThat(s.heldAggregates()).isEqualTo(1);
      assertThat(s.oldestPendingAge()).isGreaterThanOrEqualTo(Duration.ZERO);
      assertThat(s.leaseOwners()).containsEntry(r.nodeId(), 64);
      assertThat(s.unownedPartitions()).isZero();

      List<StoredEvent> failed = admin.troubled(null, "Order", "a", 10);
      assertThat(failed).singleElement().satisfies(e -> {
        assertThat(e.id()).isEqualTo(poison);
        assertThat(e.status()).isEqualTo("FAILED");
        assertThat(e.lastError()).contains("too large");
      });
      assertThat(admin.troubled("OrderCreated", null, null, 10)).isEmpty();

      // Retry while the cause persists: fails again, still held.
      assertThat(admin.retry(EventSelector.id(poison))).isEqualTo(1);
      await().atMost(Duration.ofSeconds(20)).until(() -> admin.status().failed() == 1
          && admin.troubled(null, null, null, 10).get(0).attempts() == 1);
      assertThat(t.acked()).extracting(OutboxMessage::id).doesNotContain(behind);

      // Skip: the failed event is dropped and the one behind it is published.
      assertThat(admin.skip(EventSelector.aggregate("Order", "a"))).isEqualTo(1);
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().stream().anyMatch(m -> m.id().equals(behind)));
      assertThat(admin.status().failed()).isZero();
      assertThat(admin.status().pending()).isZero();
      assertThat(admin.skip(EventSelector.allFailed())).isZero();
    }
  }

  @Test
  final void publishedRowsArePurgedInSmallBatches() throws Exception {
    for (int i = 0; i < 25; i++) {
      write("p-" + i, 2);
    }
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = Relay.builder(fixture.store(), t).completionMode(CompletionMode.MARK).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() ->
          count(ds, "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") == 25);
    }
    assertThat(admin.purgePublished(Duration.ofDays(1), 10)).as("nothing is a day old").isZero();
    Thread.sleep(50);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(10);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(10);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(5);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_outbox")).isZero();
  }
}
