package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.CompletionMode;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The SPI's default for stores that cannot leave positions out in their query. */
class OutboxStoreDefaultsTest {

  /** Returns the pending positions 1..n in order, as a claim would; records the limits asked. */
  static final class Positions implements OutboxStore {
    final List<Integer> limits = new ArrayList<>();
    final long n;

    Positions(long n) {
      this.n = n;
    }

    @Override
    public List<OutboxMessage> claim(String nodeId, Collection<PartitionLease> leases, int limit) {
      limits.add(limit);
      return LongStream.rangeClosed(1, Math.min(n, limit))
          .mapToObj(p -> new OutboxMessage(p, UUID.randomUUID(), "Order", "a" + p, 1, 0, "T", 1, "{}",
              Map.of(), null, null, null, Instant.now(), Instant.now(), 0, "/src"))
          .toList();
    }

    @Override
    public int partitionCount() {
      return 64;
    }

    @Override
    public void verifySchema() {}

    @Override
    public void append(Connection connection, List<PreparedEvent> events) {}

    @Override
    public int heartbeat(String nodeId, Duration ttl) {
      return 1;
    }

    @Override
    public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
      return List.of();
    }

    @Override
    public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> leases, Duration ttl) {
      return List.of();
    }

    @Override
    public void release(String nodeId, Collection<PartitionLease> leases) {}

    @Override
    public void leave(String nodeId) {}

    @Override
    public Completion complete(String nodeId, Collection<PartitionLease> leases, List<OutboxMessage> published,
        List<FailedPublish> failed, CompletionMode mode) {
      return new Completion(0, 0, 0);
    }
  }

  @Test
  void theDefaultClaimsMoreAndLeavesTheExcludedPositionsOut() {
    Positions store = new Positions(100);
    List<OutboxMessage> next = store.claim("n", List.of(), 5, new long[] {1, 2, 4, 9});
    assertThat(next).extracting(OutboxMessage::position).containsExactly(3L, 5L, 6L, 7L, 8L);
    assertThat(store.limits).containsExactly(9);
  }

  @Test
  void withNothingExcludedItIsThePlainClaim() {
    Positions store = new Positions(3);
    assertThat(store.claim("n", List.of(), 5, new long[0])).extracting(OutboxMessage::position)
        .containsExactly(1L, 2L, 3L);
    assertThat(store.limits).containsExactly(5);
  }
}
