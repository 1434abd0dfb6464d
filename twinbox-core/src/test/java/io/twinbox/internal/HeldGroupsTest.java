package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.ChangeFeedStore.TableGroup;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxMessage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The bookkeeping between the WAL relay's stream and its sweep: pure logic, no server. */
class HeldGroupsTest {
  private static final GroupKey A = new GroupKey("Order", "a", true);
  private static final GroupKey B = new GroupKey("Order", "b", true);

  @Test
  void groupsInTheTableAtStartAreHeldUpToTheirLastRow() {
    HeldGroups h = new HeldGroups(Map.of(A, new TableGroup(5, 7, false)));
    assertThat(h.isHeld(A)).isTrue();
    assertThat(h.isHeld(B)).isFalse();
    assertThat(h.sweepLimit(A)).isEqualTo(7);
    assertThat(h.caughtUp(List.of(A), false)).isEmpty();
    h.sweptOne(msg("a", 6), 1_000);
    assertThat(h.caughtUp(List.of(A), false)).as("row 7 not swept yet").isEmpty();
    assertThat(h.resumable(A, 8)).as("7 is not done").isFalse();
    h.sweptOne(msg("a", 7), 1_100);
    assertThat(h.caughtUp(List.of(A), false)).containsExactly(A);
    assertThat(h.resumable(A, 8)).as("the sweep published 7: 8 may go on the stream").isTrue();
    assertThat(h.resumable(A, 9)).as("8 is missing").isFalse();
  }

  @Test
  void onlyAGroupHeldForNothingButItsRowsAtStartAwaitsTheStream() {
    GroupKey failed = new GroupKey("Order", "f", true);
    GroupKey left = new GroupKey("Order", "l", true);
    HeldGroups h = new HeldGroups(Map.of(A, new TableGroup(5, 9, false), failed, new TableGroup(5, 9, true),
        left, new TableGroup(5, 9, false)));
    assertThat(h.awaitingStream(A)).isTrue();
    assertThat(h.awaitingStream(failed)).as("a failure holds it: the sweep's").isFalse();
    assertThat(h.awaitingStream(B)).as("not held at all").isFalse();
    h.hold(left, 10); // the stream left an event of it
    assertThat(h.awaitingStream(left)).as("left by the stream: the sweep's").isFalse();
    assertThat(h.releasedByFirstEvent(A, 7)).as("7 is above the lowest row at start: 5 may be behind").isFalse();
    assertThat(h.awaitingStream(A)).as("seen on the stream: no longer waiting for it").isFalse();
    h.hold(B, 3);
    assertThat(h.awaitingStream(B)).as("held later, not at start").isFalse();
  }

  @Test
  void aGroupsFirstStreamEventReleasesItWhenNoRowOfItCanBeBehindTheStream() {
    GroupKey failed = new GroupKey("Order", "f", true);
    GroupKey unordered = new GroupKey("Ping", UUID.randomUUID().toString(), false);
    HeldGroups h = new HeldGroups(Map.of(A, new TableGroup(5, 9, false), B, new TableGroup(5, 9, false),
        failed, new TableGroup(5, 9, true), unordered, new TableGroup(0, 0, false)));
    assertThat(h.releasedByFirstEvent(A, 5)).as("the table's lowest row arrives first: all are ahead").isTrue();
    assertThat(h.releasedByFirstEvent(B, 7)).as("5 and 6 are behind the stream").isFalse();
    assertThat(h.releasedByFirstEvent(B, 8)).as("only the first event decides").isFalse();
    assertThat(h.releasedByFirstEvent(failed, 5)).as("a failed row holds its group").isFalse();
    assertThat(h.releasedByFirstEvent(unordered, 0)).isTrue();
    assertThat(h.releasedByFirstEvent(new GroupKey("Order", "new", true), 1)).as("not held").isFalse();
    HeldGroups replay = new HeldGroups(Map.of(A, new TableGroup(5, 9, false)));
    assertThat(replay.releasedByFirstEvent(A, 3)).as("a replayed event older than the table's rows").isTrue();
  }

  @Test
  void anUnsettledLeftRowBlocksRelease() {
    HeldGroups h = new HeldGroups(Map.of());
    h.hold(A, 3);
    h.unsettled(A, +1);
    h.sweptOne(msg("a", 2), 10);
    assertThat(h.settledHeld()).isEmpty();
    assertThat(h.resumable(A, 3)).isFalse();
    h.unsettled(A, -1);
    assertThat(h.settledHeld()).containsExactly(A);
    assertThat(h.caughtUp(List.of(A), true)).as("a sweep that claimed everything catches up").containsExactly(A);
  }

  @Test
  void theStreamSkipsWhatTheSweepPublishedUntilItIsPastThatPosition() {
    HeldGroups h = new HeldGroups(Map.of());
    OutboxMessage b5 = msg("b", 5);
    h.sweptOne(b5, 500);
    assertThat(h.alreadySwept(msg("b", 4))).isTrue();
    assertThat(h.alreadySwept(b5)).isTrue();
    assertThat(h.alreadySwept(msg("b", 6))).isFalse();
    h.streamReached(499);
    assertThat(h.sweptRecords()).isEqualTo(1);
    h.streamReached(500);
    assertThat(h.sweptRecords()).isZero();
  }

  @Test
  void aHeldGroupKeepsItsSweepRecordSoItCanResume() {
    HeldGroups h = new HeldGroups(Map.of(A, new TableGroup(1, 2, false)));
    h.sweptOne(msg("a", 2), 100);
    h.streamReached(1_000);
    assertThat(h.resumable(A, 3)).isTrue();
    h.release(List.of(A));
    h.streamReached(1_000);
    assertThat(h.sweptRecords()).isZero();
  }

  private static OutboxMessage msg(String aggregate, long sequence) {
    return new OutboxMessage(sequence, UUID.randomUUID(), "Order", aggregate, sequence, 0, "T", 1, "{}", Map.of(),
        null, null, null, Instant.now(), Instant.now(), 0, null);
  }
}
