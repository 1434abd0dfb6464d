package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxAdminStore.PendingQuery;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.testing.InMemoryStore;
import io.twinbox.testing.TestClock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The operator facade over a store, on the in-memory store. */
class TwinboxAdminTest {
  private final InMemoryStore store = InMemoryStore.create(TestClock.fixed(Instant.parse("2026-12-01T00:00:00Z")));
  private final TwinboxAdmin admin = TwinboxAdmin.of(store);

  private UUID write(String aggregateId) throws Exception {
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = Outbox.builder(store).build().write(c,
          OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId).payload("{}").build());
      c.commit();
      return id;
    }
  }

  /** Claims every row and fails the first of {@code aggregateId} for good, as a relay does on a rejection. */
  private void failAll(String aggregateId) {
    List<PartitionLease> leases = store.acquire("relay", store.partitionCount(), Duration.ofMinutes(1));
    List<FailedPublish> failed = store.claim("relay", leases, 100).stream().map(OutboxMessage.class::cast)
        .filter(m -> m.aggregateId().equals(aggregateId) && m.sequence() == 1)
        .map(m -> new FailedPublish(m.position(), true, Duration.ZERO, "rejected by the broker: too large")).toList();
    store.complete("relay", leases, List.of(), failed, CompletionMode.DELETE);
    store.release("relay", leases);
  }

  @Test
  void listsRetriesAndSkipsFailedEventsThroughTheStore() throws Exception {
    UUID bad = write("a");
    write("a");
    write("b");
    failAll("a");
    assertThat(admin.status().failed()).isEqualTo(1);
    assertThat(admin.status().heldAggregates()).isEqualTo(1);
    assertThat(admin.failed(10)).singleElement().satisfies(e -> {
      assertThat(e.id()).isEqualTo(bad);
      assertThat(e.lastError()).contains("too large");
    });
    assertThat(admin.failed("OrderCreated", "Order", "b", 10)).isEmpty();
    assertThat(admin.retryEvent(bad)).isEqualTo(1);
    assertThat(admin.status().failed()).isZero();
    failAll("a");
    assertThat(admin.skipAggregate("Order", "a")).isEqualTo(1);
    assertThat(admin.retryAllFailed()).isZero();
    assertThat(admin.status().pending()).isEqualTo(2);
  }

  @Test
  void badArgumentsAreRefusedNamingTheArgumentAndItsLimit() {
    assertThatThrownBy(() -> admin.failed(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must be within [1, 10000], was 0");
    assertThatThrownBy(() -> admin.failed(10_001)).hasMessageContaining("limit must be within [1, 10000]");
    assertThatThrownBy(() -> admin.retry(new EventSelector(null, null, null, false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("selector must name");
    assertThatThrownBy(() -> admin.purgePublished(Duration.ZERO, 10)).hasMessage("age must be > 0, was PT0S");
    assertThatThrownBy(() -> admin.purgeSuppliedIds(Duration.ofDays(1), 0)).hasMessage("limit must be >= 1, was 0");
    assertThatThrownBy(() -> admin.heldAggregates(null, 0)).hasMessage("limit must be within [1, 10000], was 0");
    assertThatThrownBy(() -> admin.pending(PendingQuery.first(10_001)))
        .hasMessage("limit must be within [1, 10000], was 10001");
    assertThatThrownBy(() -> admin.pending(new PendingQuery(null, null, null, Duration.ofSeconds(-1), 0, 10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("olderThan must be >= 0, was PT-1S");
    assertThatThrownBy(() -> admin.pending(new PendingQuery(null, null, null, null, 0, 10)))
        .hasMessage("olderThan cannot be null");
    assertThatThrownBy(() -> admin.pending(new PendingQuery(null, null, null, Duration.ZERO, -1, 10)))
        .hasMessage("afterPosition must be >= 0, was -1");
    assertThatThrownBy(() -> admin.countPublished(Duration.ZERO)).hasMessage("age must be > 0, was PT0S");
  }

  @Test
  void healthIsDownWhenEventsArePendingAndNoRelayHoldsALease() throws Exception {
    assertThat(admin.health().check().up()).isTrue();
    write("h");
    Health.Report r = admin.health(Duration.ofMinutes(1)).check();
    assertThat(r.up()).isFalse();
    assertThat(r.reasons()).singleElement().asString().contains("no live relay holds a lease");
  }
}
