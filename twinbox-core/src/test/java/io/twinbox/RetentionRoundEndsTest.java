package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A round removes what was due when it began and ends, even while rows become due faster than its
 * batches remove them (a relay marking rows PUBLISHED at full speed): otherwise it chased the newest
 * rows for ever, held the lock, and never reached the supplied ids or the inbox. Seen in
 * {@code RetentionRoundsTests} once the relay's claim got faster.
 */
class RetentionRoundEndsTest {
  private static final Duration AGE = Duration.ofSeconds(1);

  /** Every batch is full for as long as the cut-off the store is asked for has not moved back by 300 ms. */
  private static final class EndlessOutbox implements OutboxAdminStore {
    final AtomicInteger batches = new AtomicInteger();
    final AtomicInteger suppliedIdCalls = new AtomicInteger();

    @Override
    public int purgePublished(Duration age, int limit) {
      batches.incrementAndGet();
      // A store whose rows became due all along: a cut-off that stays put finds new rows each time.
      return age.minus(AGE).compareTo(Duration.ofMillis(300)) < 0 ? limit : 0;
    }

    @Override
    public int purgeSuppliedIds(Duration age, int limit) {
      suppliedIdCalls.incrementAndGet();
      return 0;
    }

    @Override
    public OutboxStatus status() {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int retry(EventSelector selector) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int skip(EventSelector selector) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void aRoundEndsAndReachesTheNextKindWhileRowsKeepBecomingDue() throws Exception {
    EndlessOutbox store = new EndlessOutbox();
    try (Retention retention = Retention.builder().outbox(store, AGE).suppliedIdRetention(AGE).batchSize(10)
        .pause(Duration.ofMillis(1)).build()) {
      Retention.Result result = CompletableFuture.supplyAsync(retention::runOnce).get(30, TimeUnit.SECONDS);

      assertThat(result.publishedEvents()).as("published rows removed").isEqualTo(10L * (store.batches.get() - 1));
      assertThat(store.suppliedIdCalls.get()).as("the round went on to the supplied ids").isEqualTo(1);
    }
  }
}
