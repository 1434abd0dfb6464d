package io.twinbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.spi.PartitionLease;
import java.sql.Connection;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a user's unit test relies on beyond the store contracts: the connections, the clock, the hooks. */
class InMemoryStoreTest {
  private final TestClock clock = TestClock.fixed(Instant.parse("2026-12-01T00:00:00Z"));
  private final InMemoryStore store = InMemoryStore.create(clock);
  private final Outbox outbox = Outbox.builder(store).build();

  private static OutboxEvent event(String aggregateId) {
    return OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId).payload("{}").build();
  }

  @Test
  void aConnectionClosedWithoutCommitRollsBackAndItsEffectsAreDropped() throws Exception {
    AtomicInteger effects = new AtomicInteger();
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1"));
      store.onCommit(c, effects::incrementAndGet);
    }
    assertThat(store.outboxRows()).isEmpty();
    assertThat(effects).hasValue(0);
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, event("o-1"));
      store.onCommit(c, effects::incrementAndGet);
      c.commit();
    }
    assertThat(store.outboxRows()).singleElement().satisfies(r -> assertThat(r.sequence()).isEqualTo(1));
    assertThat(effects).hasValue(1);
  }

  @Test
  void aStatementIsRefusedWithWhatToUseInstead() throws Exception {
    try (Connection c = store.dataSource().getConnection()) {
      assertThatThrownBy(() -> c.prepareStatement("SELECT 1")).isInstanceOf(SQLFeatureNotSupportedException.class)
          .hasMessageContaining("runs no SQL").hasMessageContaining("twinbox-jdbc");
    }
    assertThatThrownBy(() -> store.onCommit(InMemoryStore.create().dataSource().getConnection(), () -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one of this in-memory store's");
  }

  @Test
  void leasesExpireAndRecordsAgeOnTheTestClock() throws Exception {
    List<PartitionLease> first = store.acquire("a", 64, Duration.ofSeconds(10));
    assertThat(store.acquire("b", 64, Duration.ofSeconds(10))).isEmpty();
    clock.advance(Duration.ofSeconds(11));
    assertThat(store.acquire("b", 64, Duration.ofSeconds(10))).hasSize(64);
    assertThat(store.renew("a", first, Duration.ofSeconds(10))).as("taken over").isEmpty();
    assertThat(store.partitionsOwnedBy("b")).isEqualTo(64);

    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      store.record(c, "billing", java.util.Map.of("m-1", "0".repeat(64)));
      c.commit();
    }
    assertThat(store.purgeProcessed(Duration.ofDays(1), 10)).isZero();
    clock.advance(Duration.ofDays(2));
    assertThat(store.purgeProcessed(Duration.ofDays(1), 10)).isEqualTo(1);
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("amount must not be negative");
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> InMemoryStore.create(clock, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("partitions must be 1–1024, was 0");
    UUID unknown = UUID.randomUUID();
    assertThatThrownBy(() -> store.spoil(unknown, "headers: null")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(unknown.toString());
  }
}
