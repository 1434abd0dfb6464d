package io.twinbox.internal;

import static io.twinbox.internal.WavePublisherTest.msg;
import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a claim with undecodable rows is split: only the bad row's aggregate waits. */
class ClaimedBatchTest {

  static UndecodableRow bad(long position, String aggregateId, long sequence) {
    return new UndecodableRow(position, "order-17", "Order", aggregateId, sequence, 3, 0,
        "undecodable row: headers: is a JSON null, not an object");
  }

  @Test
  void anUndecodableRowHoldsBackOnlyTheLaterRowsOfItsAggregate() {
    OutboxMessage a1 = msg("a", 1);
    OutboxMessage a3 = msg("a", 3);
    OutboxMessage b1 = msg("b", 1);
    OutboxMessage a4 = msg("a", 4);
    OutboxMessage c1 = msg("c", 1);
    List<ClaimedRow> claim = List.of(a1, bad(1_000, "a", 2), b1, a3, bad(1_001, null, 0), a4, c1);
    ClaimedBatch batch = ClaimedBatch.of(claim);
    assertThat(batch.messages()).containsExactly(a1, b1, c1);
    assertThat(batch.heldBack()).isEqualTo(2);
    assertThat(batch.undecodable()).extracting(UndecodableRow::position).containsExactly(1_000L, 1_001L);
    FailedPublish retry = new FailedPublish(7, false, Duration.ofSeconds(1), "flaky");
    assertThat(batch.failures(List.of(retry))).containsExactly(
        new FailedPublish(1_000, true, Duration.ZERO, "undecodable row: headers: is a JSON null, not an object"),
        new FailedPublish(1_001, true, Duration.ZERO, "undecodable row: headers: is a JSON null, not an object"),
        retry);
  }

  @Test
  void aClaimWithoutUndecodableRowsIsPublishedWhole() {
    List<ClaimedRow> claim = List.of(msg("a", 1), msg("a", 2), msg("b", 1));
    ClaimedBatch batch = ClaimedBatch.of(claim);
    assertThat(batch.messages()).containsExactlyElementsOf(claim.stream().map(OutboxMessage.class::cast).toList());
    assertThat(batch.undecodable()).isEmpty();
    assertThat(batch.heldBack()).isZero();
    List<FailedPublish> none = List.of();
    assertThat(batch.failures(none)).isSameAs(none);
  }

  @Test
  void aBadRowOfTheSameIdInAnotherAggregateTypeHoldsNothingElse() {
    OutboxMessage other = new OutboxMessage(50, java.util.UUID.randomUUID(), "Payment", "a", 5, 0, "T", 1, "{}",
        java.util.Map.of(), null, null, null, null, null, 0, null);
    ClaimedBatch batch = ClaimedBatch.of(List.of(bad(1, "a", 1), other));
    assertThat(batch.messages()).containsExactly(other);
  }
}
