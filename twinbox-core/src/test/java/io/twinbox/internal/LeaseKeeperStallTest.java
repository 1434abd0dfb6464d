package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.RelayListener;
import io.twinbox.testing.InMemoryStore;
import io.twinbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a stall of a relay does to its leases, on the store's clock (issue 21: fenced completions
 * in fault-free rows). Two keepers share the partitions; then one stands still (GC, CPU
 * starvation, SIGSTOP) while the other keeps its cadence of ttl/3. A stall during which the
 * store's clock moves less than the ttl past the stalled node's last renewal costs nothing; one
 * that moves it past the ttl hands every partition to the other node, whose takeover fences the
 * stalled node's in-flight completions, so their messages are published twice. With the fault
 * runner's ttl of 2 s and renewals every 667 ms, a process stall from 1.33 s up can therefore
 * lose leases, and one of 2.67 s always does while the other relay runs: configured behaviour.
 */
class LeaseKeeperStallTest {
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration PERIOD = TTL.dividedBy(3);

  private TestClock clock;
  private InMemoryStore store;
  private LeaseKeeper a;
  private LeaseKeeper b;

  @BeforeEach
  void twoNodesShareThePartitions() {
    clock = TestClock.fixed(Instant.parse("2026-12-02T06:00:00Z"));
    store = InMemoryStore.create(clock);
    a = keeper("relay-a");
    b = keeper("relay-b");
    a.join();
    a.tick(); // alone: takes every partition
    b.join();
    b.tick(); // two live nodes, nothing free yet
    a.tick(); // gives its surplus back
    b.tick(); // takes it
    assertThat(a.partitions()).hasSize(InMemoryStore.PARTITIONS / 2);
    assertThat(b.partitions()).hasSize(InMemoryStore.PARTITIONS / 2).doesNotContainAnyElementsOf(a.partitions());
  }

  @Test
  void aStallShorterThanTheTtlKeepsEveryLease() {
    var before = a.partitions();
    stallA(TTL.minusMillis(1));
    a.tick();
    assertThat(a.partitions()).isEqualTo(before);
    assertThat(b.partitions()).doesNotContainAnyElementsOf(before);
  }

  @Test
  void aStallLongerThanTheTtlHandsEveryPartitionToTheOtherNode() {
    var before = a.partitions();
    stallA(TTL.plusMillis(1));
    assertThat(b.partitions()).containsAll(before).hasSize(InMemoryStore.PARTITIONS);
    a.tick(); // wakes up: its renewal finds every lease taken
    assertThat(a.partitions()).isEmpty();
  }

  /** Node a does nothing for {@code stall} while b ticks every ttl/3 and once at the end. */
  private void stallA(Duration stall) {
    Duration left = stall;
    while (left.compareTo(PERIOD) > 0) {
      clock.advance(PERIOD);
      left = left.minus(PERIOD);
      b.tick();
    }
    clock.advance(left);
    b.tick();
  }

  private LeaseKeeper keeper(String node) {
    ReentrantLock lock = new ReentrantLock();
    return new LeaseKeeper(store, node, TTL, new RelayListener() {}, p -> lock);
  }
}
