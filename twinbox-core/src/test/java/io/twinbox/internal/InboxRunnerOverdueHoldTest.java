package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.RetryPolicy;
import io.twinbox.testing.InMemoryStore;
import io.twinbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A message the DELTA guard holds behind a gap must end parked after {@code gapTimeout} even when
 * no batch comes after it (a quiet stream): found by core's simulation (seed 2087), where sequence
 * 11 of an aggregate was parked, 12–22 were held, and nothing arrived to park them.
 */
class InboxRunnerOverdueHoldTest {
  private final TestClock clock = TestClock.fixed(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryStore store = InMemoryStore.create(clock);
  private final List<String> applied = new ArrayList<>();
  private final VirtualTicker ticker = new VirtualTicker();

  @Test
  void aHoldPastGapTimeoutIsParkedWithoutAnotherBatch() throws InterruptedException {
    Inbox inbox = Inbox.builder(store, "payments").ordering(InboxOrdering.DELTA).gapTimeout(Duration.ofSeconds(5))
        .build();
    InboxRunner runner = new InboxRunner(inbox, store.dataSource(), (c, m) -> applied.add(m.id()), 10,
        RetryPolicy.ofDefaults(), () -> true, ticker);

    List<InboxRunner.Item> items = List.of(item("m1", 1), item("m3", 3));
    assertThat(runner.processRedeliverable(items, new boolean[2], (from, to) -> {})).isEqualTo(2);
    assertThat(applied).containsExactly("m1"); // m3 waits for sequence 2

    assertThat(runner.parkOverdueHeldIfDue()).as("not overdue yet").isZero();
    clock.advance(Duration.ofSeconds(6));
    assertThat(runner.parkOverdueHeldIfDue()).as("checked less than a second ago").isZero();
    ticker.advanceNanos(1_000_000_000L);
    assertThat(runner.parkOverdueHeldIfDue()).isEqualTo(1);

    assertThat(store.parked("payments")).singleElement().satisfies(p -> {
      assertThat(p.message().id()).isEqualTo("m3");
      assertThat(p.reason()).contains("waited longer than gapTimeout").contains("for sequence 2");
    });
    assertThat(applied).containsExactly("m1");
    assertThat(runner.parked.get()).isEqualTo(1);
  }

  @Test
  void holdsGetAFullGapTimeoutOfDeliveryAfterTheSourceReconnects() throws InterruptedException {
    Inbox inbox = Inbox.builder(store, "payments").ordering(InboxOrdering.DELTA).gapTimeout(Duration.ofSeconds(5))
        .build();
    InboxRunner runner = new InboxRunner(inbox, store.dataSource(), (c, m) -> applied.add(m.id()), 10,
        RetryPolicy.ofDefaults(), () -> true, ticker);
    runner.processRedeliverable(List.of(item("m1", 1), item("m3", 3)), new boolean[2], (from, to) -> {});
    // The broker is away for longer than gapTimeout; the hold ages meanwhile. Then delivery resumes.
    clock.advance(Duration.ofSeconds(60));
    ticker.advanceNanos(60_000_000_000L);
    runner.sessionStarted();
    assertThat(runner.parkOverdueHeldIfDue()).as("in the grace after the reconnect").isZero();
    // m2 was in the queue all along and comes right after the reconnect: m2 and m3 are applied.
    runner.processRedeliverable(List.of(item("m2", 2)), new boolean[1], (from, to) -> {});
    assertThat(applied).containsExactly("m1", "m2", "m3");
    assertThat(store.parked("payments")).isEmpty();
  }

  @Test
  void afterTheGraceAnOverdueHoldIsParked() throws InterruptedException {
    Inbox inbox = Inbox.builder(store, "payments").ordering(InboxOrdering.DELTA).gapTimeout(Duration.ofSeconds(5))
        .build();
    InboxRunner runner = new InboxRunner(inbox, store.dataSource(), (c, m) -> applied.add(m.id()), 10,
        RetryPolicy.ofDefaults(), () -> true, ticker);
    runner.sessionStarted();
    runner.processRedeliverable(List.of(item("m1", 1), item("m3", 3)), new boolean[2], (from, to) -> {});
    clock.advance(Duration.ofSeconds(6));
    ticker.advanceNanos(6_000_000_000L);
    assertThat(runner.parkOverdueHeldIfDue()).isEqualTo(1);
  }

  @Test
  void withoutOrderingItNeverLooks() {
    Inbox inbox = Inbox.builder(store, "payments").build();
    InboxRunner runner = new InboxRunner(inbox, store.dataSource(), (c, m) -> {}, 10, RetryPolicy.ofDefaults(),
        () -> true, ticker);
    assertThat(runner.parkOverdueHeldIfDue()).isZero();
  }

  private static InboxRunner.Item item(String id, long sequence) {
    return new InboxRunner.Item(new InboxMessage(id, "Deposited", 1, "test", "Account", "a-1", sequence, "{}",
        Map.of(), null, null, null, null, null), null);
  }
}
