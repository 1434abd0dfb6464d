package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.testing.InMemoryStore;
import io.twinbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a consumer does with a batch redelivered after a restart (every message flagged
 * redelivered, as Kafka's first hand-out of a newly assigned partition and RabbitMQ's unacked
 * prefetch are). The example's acceptance test (A1: 5% of consumer commits followed by a crash)
 * stalled at ~35 messages/s when every such message ran alone in two transactions: each restart
 * turned the next hundreds of messages into single transactions, each with its own chance of the
 * next crash. Now a redelivered batch runs in batches, its suspects counted first in one short
 * transaction, and still a message that kills the process runs at most {@code maxAttempts} times.
 */
class InboxRunnerRestartTest {
  private static final int MAX_ATTEMPTS = 3;
  private final InMemoryStore store = InMemoryStore.create(TestClock.fixed(Instant.parse("2026-01-01T00:00:00Z")));
  private final Inbox inbox = Inbox.builder(store, "payments").build();
  private final Map<String, Integer> runs = new HashMap<>();
  /** Handler runs whose transaction committed. */
  private final List<String> applied = new ArrayList<>();
  private final List<String> ranInTransaction = new ArrayList<>();
  private final Ticker ticker = new VirtualTicker();

  /** The process dies in the handler: nothing after it in the runner happens. */
  private static final class ProcessDeath extends Error {
    ProcessDeath() {
      super("simulated kill -9 in the handler", null, false, false);
    }
  }

  private InboxRunner runner(InboxHandler handler, int batchSize) {
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).initialDelay(Duration.ofMillis(10)).build();
    return new InboxRunner(inbox, store.dataSource(), handler, batchSize, retry, () -> true, ticker);
  }

  private InboxHandler counting(InboxHandler then) {
    return (c, m) -> {
      runs.merge(m.id(), 1, Integer::sum);
      then.handle(c, m);
      ranInTransaction.add(m.id());
    };
  }

  /** Told of each committed range: the handler runs of that transaction took effect. */
  private InboxRunner.Committed committed(List<InboxRunner.Item> items) {
    return (from, to) -> {
      for (InboxRunner.Item item : items.subList(from, to)) {
        if (ranInTransaction.contains(item.message().id())) {
          applied.add(item.message().id());
        }
      }
      ranInTransaction.clear();
    };
  }

  @Test
  void aBatchRedeliveredAfterARestartRunsInBatchesAndLeavesNoCounters() throws InterruptedException {
    InboxRunner runner = runner(counting((c, m) -> {}), 50);
    List<InboxRunner.Item> items = items(100);

    assertThat(runner.processRedeliverable(items, all(100), committed(items))).isEqualTo(100);

    assertThat(applied).hasSize(100);
    assertThat(runner.transactions.get()).as("transactions for 100 redelivered messages, batch size 50").isEqualTo(2);
    assertThat(store.attempts("payments")).as("counters left behind").isEmpty();
    assertThat(store.parked("payments")).isEmpty();
  }

  @Test
  void aKillerRunsAtMostMaxAttemptsTimesAndItsBatchMatesAreAppliedNotParked() {
    List<InboxRunner.Item> items = items(10);
    InboxHandler handler = counting((c, m) -> {
      if (m.id().equals("m5")) {
        throw new ProcessDeath();
      }
    });
    boolean[] redelivered = new boolean[10]; // the first delivery, in steady state
    int starts = 0;
    while (store.parked("payments").isEmpty()) {
      assertThat(++starts).as("starts before the killer is parked").isLessThanOrEqualTo(MAX_ATTEMPTS + 1);
      InboxRunner runner = runner(handler, 50); // a new process
      try {
        assertThat(runner.processRedeliverable(items, redelivered, committed(items))).isEqualTo(10);
      } catch (ProcessDeath e) {
        ranInTransaction.clear(); // its transaction never committed
        redelivered = all(10); // everything unacknowledged comes again, flagged
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    assertThat(runs.get("m5")).as("runs of the killer").isLessThanOrEqualTo(MAX_ATTEMPTS);
    assertThat(store.parked("payments")).singleElement()
        .satisfies(p -> assertThat(p.message().id()).isEqualTo("m5"));
    assertThat(applied).containsExactlyInAnyOrder("m0", "m1", "m2", "m3", "m4", "m6", "m7", "m8", "m9");
    assertThat(store.attempts("payments")).as("counters left behind").isEmpty();
  }

  @Test
  void aFailingRedeliveredMessageRunsMaxAttemptsTimesCountedOnceEach() throws InterruptedException {
    InboxRunner runner = runner(counting((c, m) -> {
      if (m.id().equals("m2")) {
        throw new IllegalStateException("no such wallet");
      }
    }), 50);

    List<InboxRunner.Item> items = items(5);
    assertThat(runner.processRedeliverable(items, all(5), committed(items))).isEqualTo(5);

    assertThat(runs.get("m2")).isEqualTo(MAX_ATTEMPTS);
    assertThat(store.parked("payments")).singleElement().satisfies(p -> {
      assertThat(p.message().id()).isEqualTo("m2");
      assertThat(p.reason()).contains("handler failed " + MAX_ATTEMPTS + " times").contains("no such wallet");
      assertThat(p.attempts()).isEqualTo(MAX_ATTEMPTS);
    });
    assertThat(applied).containsExactly("m0", "m1", "m3", "m4");
    assertThat(store.attempts("payments")).isEmpty();
  }

  @Test
  void withFewerThanThreeAttemptsEveryRedeliveredMessageRunsAlone() throws InterruptedException {
    RetryPolicy two = RetryPolicy.builder().maxAttempts(2).build();
    InboxRunner runner = new InboxRunner(inbox, store.dataSource(), counting((c, m) -> {}), 50, two, () -> true, ticker);

    List<InboxRunner.Item> items = items(4);
    assertThat(runner.processRedeliverable(items, all(4), committed(items))).isEqualTo(4);

    assertThat(runner.transactions.get()).as("one transaction per message").isEqualTo(4);
    assertThat(applied).hasSize(4);
  }

  private static boolean[] all(int n) {
    boolean[] b = new boolean[n];
    Arrays.fill(b, true);
    return b;
  }

  private static List<InboxRunner.Item> items(int n) {
    List<InboxRunner.Item> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      items.add(new InboxRunner.Item(new InboxMessage("m" + i, "OrderCreated", 1, "test", "Order", "o-" + i, 0,
          "{\"n\":" + i + "}", Map.of(), null, null, null, null, null), null));
    }
    return items;
  }
}
