package io.twinbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TopicGateTest {
  private static final long MS = 1_000_000L;
  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final TopicGate gate = new TopicGate(1_000, now::get);

  @Test
  void aSendThatBlockedForMaxBlockClosesItsTopicForAsLong() {
    long start = now.get();
    now.addAndGet(1_000 * MS);
    gate.record("orders", start, true);

    assertThat(gate.isOpen("orders")).isFalse();
    assertThat(gate.isOpen("payments")).isTrue();
    now.addAndGet(999 * MS);
    assertThat(gate.isOpen("orders")).isFalse();
    now.addAndGet(MS);
    assertThat(gate.isOpen("orders")).isTrue();
  }

  @Test
  void quickFailuresAndSlowSuccessesLeaveTheTopicOpen() {
    long start = now.get();
    now.addAndGet(10 * MS);
    gate.record("orders", start, true);
    assertThat(gate.isOpen("orders")).isTrue();

    start = now.get();
    now.addAndGet(5_000 * MS);
    gate.record("orders", start, false);
    assertThat(gate.isOpen("orders")).isTrue();
  }

  @Test
  void aProducerThatNeverBlocksNeedsNoGate() {
    TopicGate off = new TopicGate(0, now::get);
    long start = now.get();
    now.addAndGet(60_000 * MS);
    off.record("orders", start, true);
    assertThat(off.isOpen("orders")).isTrue();
  }

  @Test
  void aMissingTopicIsRejectedForAWindowThenRecheckedByOneCallerOnly() {
    gate.missing("orders");
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.MISSING);
    assertThat(gate.state("payments")).isEqualTo(TopicGate.State.OPEN);
    now.addAndGet(999 * MS);
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.MISSING);
    now.addAndGet(MS);
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.RECHECK);
    assertThat(gate.state("orders")).as("others keep rejecting while one rechecks")
        .isEqualTo(TopicGate.State.MISSING);
    gate.forgetMissing("orders"); // the recheck found it
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.OPEN);
  }

  @Test
  void theMissingWindowIsAtLeastOneSecondEvenForAProducerThatNeverBlocks() {
    TopicGate off = new TopicGate(0, now::get);
    assertThat(off.missingWindowNanos()).isEqualTo(1_000 * MS);
    assertThat(new TopicGate(5_000, now::get).missingWindowNanos()).isEqualTo(5_000 * MS);
  }

  @Test
  void aSuspectedTopicIsRecheckedOnceWithoutRejectingAnyone() {
    gate.suspectMissing("orders");
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.RECHECK);
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.OPEN);
  }

  @Test
  void aMissingVerdictReplacesAnUnreachableOne() {
    long start = now.get();
    now.addAndGet(1_000 * MS);
    gate.record("orders", start, true);
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.UNREACHABLE);
    gate.missing("orders");
    assertThat(gate.state("orders")).isEqualTo(TopicGate.State.MISSING);
  }
}
