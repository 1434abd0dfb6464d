package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.HeldAggregate;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.OutboxStatus;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
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
 * What operators see and do: status counts that match the rows, FAILED events listed, held
 * aggregates with the event that holds each, pending events paged and filtered, retry and skip that
 * unblock an aggregate, retention of PUBLISHED rows in small batches.
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
    fixture.reset();
  }

  private UUID write(String aggregateId, int n) throws Exception {
    return write(n == 1 ? "Poison" : "OrderCreated", "Order", aggregateId, n);
  }

  private UUID write(String type, String aggregateType, String aggregateId, int n) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder(type, 1)
          .aggregate(aggregateType, aggregateId).payload("{\"n\":" + n + "}").build());
      c.commit();
      return id;
    }
  }

  @Test
  final void heldAggregatesSayWhichEventHoldsEachWhyAndSinceWhen() throws Exception {
    Instant before = Instant.now().minusSeconds(60); // database clocks may differ a little from ours
    UUID poison = write("Poison", "Order", "held-f", 1);
    UUID behindPoison = write("OrderCreated", "Order", "held-f", 2);
    UUID flaky = write("Flaky", "Invoice", "held-r", 1);
    UUID behindFlaky = write("OrderCreated", "Invoice", "held-r", 2);
    UUID fine = write("OrderCreated", "Order", "fine", 1);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.type().equals("Poison"), PublishOutcome.rejected("poison <script>alert(1)</script>"))
        .failWhen(m -> m.type().equals("Flaky"), PublishOutcome.retry("broker busy"));
    try (Relay r = Relay.builder(fixture.store(), t).leaseTtl(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
        .retryPolicy(RetryPolicy.builder().maxAttempts(10).backoff(Duration.ofMinutes(10), Duration.ofMinutes(10))
            .jitter(0).build()).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().stream().anyMatch(m -> m.id().equals(fine))
          && admin.status().failed() == 1 && admin.status().retrying() == 1);
    }
    List<HeldAggregate> held = admin.heldAggregates(null, 10);
    assertThat(held).hasSize(2).hasSize((int) admin.status().heldAggregates());
    HeldAggregate failed = held.get(0);
    assertThat(failed.aggregateType()).isEqualTo("Order");
    assertThat(failed.aggregateId()).isEqualTo("held-f");
    assertThat(failed.holding().id()).as("the earliest troubled event holds it").isEqualTo(poison);
    assertThat(failed.reason()).isEqualTo(HeldAggregate.Reason.FAILED);
    assertThat(failed.holding().lastError()).contains("poison <script>alert(1)</script>");
    assertThat(failed.since()).isEqualTo(failed.holding().createdAt()).isAfter(before);
    HeldAggregate retrying = held.get(1);
    assertThat(retrying.aggregateId()).isEqualTo("held-r");
    assertThat(retrying.holding().id()).isEqualTo(flaky);
    assertThat(retrying.reason()).isEqualTo(HeldAggregate.Reason.RETRYING);
    assertThat(retrying.holding().attempts()).isEqualTo(1);
    assertThat(retrying.holding().lastError()).contains("broker busy");
    assertThat(retrying.holding().nextAttemptAt()).isAfter(retrying.holding().createdAt().plusSeconds(60));
    assertThat(t.acked()).extracting(OutboxMessage::id).doesNotContain(poison, behindPoison, flaky, behindFlaky);

    assertThat(admin.heldAggregates("Invoice", 10)).singleElement()
        .satisfies(h -> assertThat(h.holding().id()).isEqualTo(flaky));
    assertThat(admin.heldAggregates("Nothing", 10)).isEmpty();
    assertThat(admin.heldAggregates(null, 1)).singleElement()
        .satisfies(h -> assertThat(h.holding().id()).isEqualTo(poison));

    // Once its holding event is skipped the aggregate is no longer listed.
    assertThat(admin.skip(EventSelector.id(poison))).isEqualTo(1);
    assertThat(admin.heldAggregates(null, 10)).extracting(HeldAggregate::aggregateId).containsExactly("held-r");
  }

  @Test
  final void pendingEventsArePagedAndFilteredByTypeAggregateAndAge() throws Exception {
    UUID old1 = write("OrderCreated", "Order", "p-1", 1);
    UUID old2 = write("OrderShipped", "Order", "p-1", 2);
    UUID old3 = write("OrderCreated", "Order", "p-2", 3);
    Thread.sleep(1_500);
    UUID new1 = write("OrderCreated", "Invoice", "p-1", 4);
    UUID new2 = write("OrderCreated", "Order", "p-3", 5);

    List<StoredEvent> page1 = admin.pending(PendingQuery.first(2));
    assertThat(page1).extracting(StoredEvent::id).containsExactly(old1, old2);
    assertThat(page1).allSatisfy(e -> assertThat(e.status()).isEqualTo("PENDING"));
    List<StoredEvent> page2 = admin.pending(new PendingQuery(null, null, null, Duration.ZERO,
        page1.get(1).position(), 2));
    assertThat(page2).extracting(StoredEvent::id).containsExactly(old3, new1);
    List<StoredEvent> page3 = admin.pending(new PendingQuery(null, null, null, Duration.ZERO,
        page2.get(1).position(), 2));
    assertThat(page3).extracting(StoredEvent::id).containsExactly(new2);
    assertThat(admin.pending(new PendingQuery(null, null, null, Duration.ZERO, page3.get(0).position(), 2))).isEmpty();

    assertThat(admin.pending(new PendingQuery("OrderCreated", null, null, Duration.ZERO, 0, 10)))
        .extracting(StoredEvent::id).containsExactly(old1, old3, new1, new2);
    assertThat(admin.pending(new PendingQuery(null, "Order", "p-1", Duration.ZERO, 0, 10)))
        .extracting(StoredEvent::id).containsExactly(old1, old2);
    assertThat(admin.pending(new PendingQuery(null, null, "p-1", Duration.ZERO, 0, 10)))
        .extracting(StoredEvent::id).containsExactly(old1, old2, new1);
    assertThat(admin.pending(new PendingQuery(null, "Invoice", null, Duration.ZERO, 0, 10)))
        .extracting(StoredEvent::id).containsExactly(new1);
    assertThat(admin.pending(new PendingQuery(null, null, null, Duration.ofMillis(1_000), 0, 10)))
        .as("written at least a second ago").extracting(StoredEvent::id).containsExactly(old1, old2, old3);
    assertThat(admin.pending(new PendingQuery(null, null, null, Duration.ofDays(1), 0, 10))).isEmpty();

    // Published rows are not pending.
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = Relay.builder(fixture.store(), t).completionMode(CompletionMode.MARK).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> t.acked().size() == 5);
    }
    assertThat(admin.pending(PendingQuery.first(10))).isEmpty();
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
          fixture.outboxRows().stream().filter(row -> row.status().equals("PUBLISHED")).count() == 25);
    }
    assertThat(admin.purgePublished(Duration.ofDays(1), 10)).as("nothing is a day old").isZero();
    assertThat(admin.countPublished(Duration.ofDays(1))).isZero();
    Thread.sleep(50);
    assertThat(admin.countPublished(Duration.ofMillis(1))).isEqualTo(25);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(10);
    assertThat(admin.countPublished(Duration.ofMillis(1))).isEqualTo(15);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(10);
    assertThat(admin.purgePublished(Duration.ofMillis(1), 10)).isEqualTo(5);
    assertThat(fixture.outboxRows()).isEmpty();
  }
}
