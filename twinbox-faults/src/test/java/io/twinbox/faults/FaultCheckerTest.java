package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.ExpectedEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * FAULTS E3, the checker's self-test: a clean run passes, and each of the five injected anomalies
 * (delete, duplicate, swap, mark-without-send, phantom) is detected with the right attribution.
 */
class FaultCheckerTest {
  private static final String TOPIC = "t";

  /** 3 aggregates × 4 events, all committed, acked, marked, delivered in order and applied once. */
  private final List<ExpectedEvent> committed = new ArrayList<>();
  private final List<UUID> rolledBack = List.of(UUID.randomUUID(), UUID.randomUUID());
  private final List<Delivery> deliveries = new ArrayList<>();
  private final Map<UUID, String> rows = new HashMap<>();
  private final Set<UUID> acked = new HashSet<>();
  private final Map<UUID, Integer> effects = new HashMap<>();
  private final List<UUID> appliedOutOfOrder = new ArrayList<>();
  private final Set<UUID> parked = new HashSet<>();

  FaultCheckerTest() {
    long offset = 0;
    for (int seq = 1; seq <= 4; seq++) {
      for (int a = 0; a < 3; a++) {
        UUID id = UUID.randomUUID();
        committed.add(ExpectedEvent.ordered(id, "Order", "o-" + a, seq));
        deliveries.add(new Delivery(TOPIC, 0, offset++, "o-" + a, id, "Order", "o-" + a, seq));
        rows.put(id, "PUBLISHED");
        acked.add(id);
        effects.put(id, 1);
      }
    }
  }

  private FaultVerdict check() {
    return FaultChecker.check(new RunFacts(committed, rolledBack, deliveries, rows, acked, effects,
        appliedOutOfOrder, parked, Set.of(), 0));
  }

  @Test
  void cleanRunPasses() {
    FaultVerdict v = check();
    assertThat(v.ok()).as(v.describe(5)).isTrue();
    assertThat(v.committed()).isEqualTo(12);
    assertThat(v.published()).isEqualTo(12);
    assertThat(v.rolledBack()).isEqualTo(2);
    assertThat(v.duplicateDeliveries()).isZero();
  }

  @Test
  void deletedFromTheBrokerIsLostAndBlamedOnTheBroker() {
    Delivery gone = deliveries.remove(4);
    effects.remove(gone.id());
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.lost()).isEqualTo(1);
    assertThat(v.lostBroker()).containsExactly(gone.id());
    assertThat(v.lostLibrary()).isEmpty();
    assertThat(v.markedNotSent()).isEmpty();
  }

  @Test
  void duplicatedDeliveryIsCountedAndADuplicateEffectFails() {
    Delivery twice = deliveries.get(5);
    deliveries.add(new Delivery(TOPIC, 0, 100, twice.key(), twice.id(), twice.aggregateType(),
        twice.aggregateId(), twice.sequence()));
    FaultVerdict deliveredTwice = check();
    assertThat(deliveredTwice.duplicateDeliveries()).isEqualTo(1);
    assertThat(deliveredTwice.ok()).as("a duplicate delivery alone is allowed").isTrue();

    effects.put(twice.id(), 2);
    FaultVerdict appliedTwice = check();
    assertThat(appliedTwice.ok()).isFalse();
    assertThat(appliedTwice.duplicateEffects()).isEqualTo(1);
    assertThat(appliedTwice.duplicateEffectIds()).containsExactly(twice.id());
  }

  @Test
  void swappedNeighboursOfOneAggregateAreOrderViolations() {
    // o-1 seq 2 (index 4) and o-1 seq 3 (index 7) exchange offsets.
    Delivery first = deliveries.get(4);
    Delivery second = deliveries.get(7);
    deliveries.set(4, new Delivery(TOPIC, 0, first.offset(), second.key(), second.id(),
        second.aggregateType(), second.aggregateId(), second.sequence()));
    deliveries.set(7, new Delivery(TOPIC, 0, second.offset(), first.key(), first.id(),
        first.aggregateType(), first.aggregateId(), first.sequence()));
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.orderViolations()).isEqualTo(2);
    assertThat(v.lost()).isZero();
  }

  @Test
  void markedPublishedWithoutASendIsLostAndBlamedOnTheLibrary() {
    Delivery never = deliveries.remove(9);
    acked.remove(never.id());
    effects.remove(never.id());
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.lostLibrary()).containsExactly(never.id());
    assertThat(v.lostBroker()).isEmpty();
    assertThat(v.markedNotSent()).containsExactly(never.id());
  }

  @Test
  void rolledBackEventOnTheBrokerIsAPhantom() {
    UUID ghost = rolledBack.get(0);
    deliveries.add(new Delivery(TOPIC, 1, 0, "o-9", ghost, "Order", "o-9", 1));
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.phantom()).isEqualTo(1);
    assertThat(v.broker().phantomIds()).containsExactly(ghost);
  }

  @Test
  void rowLeftPendingIsStuckAndLostToTheLibrary() {
    Delivery pending = deliveries.remove(0);
    rows.put(pending.id(), "PENDING");
    acked.remove(pending.id());
    effects.remove(pending.id());
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.stuck()).isEqualTo(1);
    assertThat(v.lostLibrary()).containsExactly(pending.id());
  }

  @Test
  void deliveredButNeverAppliedNorParkedIsUnapplied() {
    effects.remove(deliveries.get(3).id());
    FaultVerdict v = check();
    assertThat(v.ok()).isFalse();
    assertThat(v.unapplied()).containsExactly(deliveries.get(3).id());
  }

  @Test
  void poisonMustBeParkedNotApplied() {
    UUID poison = deliveries.get(2).id();
    FaultVerdict applied = FaultChecker.check(new RunFacts(committed, rolledBack, deliveries, rows,
        acked, effects, List.of(), Set.of(), Set.of(poison), 0));
    assertThat(applied.ok()).isFalse();
    assertThat(applied.poisonApplied()).containsExactly(poison);

    effects.remove(poison);
    FaultVerdict parked = FaultChecker.check(new RunFacts(committed, rolledBack, deliveries, rows,
        acked, effects, List.of(), Set.of(poison), Set.of(poison), 0));
    assertThat(parked.ok()).as(parked.describe(5)).isTrue();
    assertThat(parked.parked()).isEqualTo(1);
    assertThat(parked.parkedHealthy()).isZero();
  }

  @Test
  void aHealthyMessageParkedFailsTheRunThoughNothingIsLostOnTheBroker() {
    UUID good = deliveries.get(4).id();
    effects.remove(good);
    parked.add(good);
    FaultVerdict v = check();
    assertThat(v.lost()).isZero();
    assertThat(v.unapplied()).isEmpty();
    assertThat(v.parkedHealthy()).isEqualTo(1);
    assertThat(v.ok()).isFalse();
    assertThat(v.line()).contains("parkedHealthy=1");
  }

  @Test
  void anEffectAppliedAfterALaterSequenceOfItsAggregateFailsTheRun() {
    UUID early = deliveries.get(0).id();
    appliedOutOfOrder.add(early);
    FaultVerdict v = check();
    assertThat(v.orderViolations()).isZero(); // the broker's order was right
    assertThat(v.applyOrderViolations()).isEqualTo(1);
    assertThat(v.ok()).isFalse();
    assertThat(v.describe(5)).contains("applied out of order: " + early);
  }
}
